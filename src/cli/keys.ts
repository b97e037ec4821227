/** `solgate keys create|list|revoke|rotate`: API keys (the plain key is printed once, at creation and rotation). */
import { parseArgs } from 'node:util';
import { openRuntime } from './runtime.js';
import { createApiKey, listApiKeys, revokeApiKey, rotateApiKey } from '../store/keys.js';
import { loadPlanTable } from '../accounts/plans.js';
import { parseAllowEntry } from '../api/plugins/ip-allow.js';
import { UsageError } from './usage-error.js';

export async function runKeys(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      'allow-ip': { type: 'string', multiple: true },
      plan: { type: 'string' },
      expires: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (sub === 'create') {
    if (!values.name?.trim()) throw new UsageError('keys create needs --name');
    const allowed = values['allow-ip'] ?? [];
    for (const a of allowed) {
      try {
        parseAllowEntry(a);
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
    }
    let expiresAt: Date | null = null;
    if (values.expires !== undefined) {
      expiresAt = new Date(values.expires);
      if (Number.isNaN(expiresAt.getTime())) throw new UsageError('--expires must be an ISO 8601 date/time');
    }
    const rt = await openRuntime();
    const plans = loadPlanTable(rt.config.plansFile).plans;
    if (values.plan !== undefined && !plans[values.plan.toLowerCase()]) {
      await rt.db.close();
      throw new UsageError(`--plan must be one of ${Object.keys(plans).join(', ')}`);
    }
    try {
      const { key, record } = await createApiKey(rt.db, { name: values.name.trim(), allowedIps: allowed, plan: values.plan?.toLowerCase(), expiresAt });
      if (values.json) console.log(JSON.stringify({ key, id: record.id, name: record.name, allowedIps: record.allowedIps, plan: record.plan, expiresAt: record.expiresAt }));
      else {
        console.log(`API key created: ${record.name} (id ${record.id})`);
        console.log(`  ${key}`);
        console.log('This key is shown once and cannot be recovered; store it now.');
      }
    } finally {
      await rt.db.close();
    }
    return 0;
  }
  if (sub === 'list') {
    const rt = await openRuntime();
    try {
      const keys = await listApiKeys(rt.db);
      if (values.json) console.log(JSON.stringify(keys));
      else
        for (const k of keys)
          console.log(`${k.id}  ${k.name}  plan=${k.plan}  ips=${k.allowedIps.join(',') || 'any'}  ${k.revokedAt ? 'REVOKED' : k.expiresAt && k.expiresAt < new Date() ? 'EXPIRED' : 'active'}`);
    } finally {
      await rt.db.close();
    }
    return 0;
  }
  if (sub === 'revoke') {
    const id = positionals[0];
    if (!id) throw new UsageError('keys revoke needs a key id');
    const rt = await openRuntime();
    try {
      const ok = await revokeApiKey(rt.db, id);
      console.log(ok ? `revoked ${id}` : `no active key with id ${id}`);
      return ok ? 0 : 1;
    } finally {
      await rt.db.close();
    }
  }
  if (sub === 'rotate') {
    const id = positionals[0];
    if (!id) throw new UsageError('keys rotate needs a key id');
    const rt = await openRuntime();
    try {
      const r = await rotateApiKey(rt.db, id);
      if (!r) {
        console.log(`no active key with id ${id}`);
        return 1;
      }
      if (values.json) console.log(JSON.stringify({ key: r.key, id: r.record.id }));
      else {
        console.log(`API key ${id} regenerated; the previous key stops working now:`);
        console.log(`  ${r.key}`);
        console.log('This key is shown once and cannot be recovered; store it now.');
      }
      return 0;
    } finally {
      await rt.db.close();
    }
  }
  throw new UsageError(`keys: unknown subcommand '${sub ?? ''}' (create, list, revoke, rotate)`);
}
