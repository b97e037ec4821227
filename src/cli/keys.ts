/**
 * `solgate keys create|list|revoke|rotate`: API keys (the plain key is printed once, at creation and rotation).
 * On an embedded data directory that a running server owns, the command acts through that server's admin API
 * (src/cli/admin-client.ts), so the key works at once and the directory keeps one owner; otherwise it opens the
 * database itself.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/index.js';
import { adminCall, AdminCallError, runningServer, type RunningServer } from './admin-client.js';
import { loadPlanTable } from '../accounts/plans.js';
import { parseAllowEntry } from '../api/plugins/ip-allow.js';
import { UsageError } from './usage-error.js';

export const KEYS_USAGE = {
  create: 'solgate keys create --name N [--allow-ip CIDR]... [--plan P] [--expires ISO-DATE] [--json]',
  list: 'solgate keys list [--json]',
  revoke: 'solgate keys revoke ID',
  rotate: 'solgate keys rotate ID [--json]',
};

/** A key as the commands print it (never the secret, except `key` right after create/rotate). */
interface KeyOut {
  id: string;
  name: string;
  plan: string;
  allowedIps: string[];
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  status: import('../store/keys.js').KeyStatus;
}

interface Backend {
  create(o: { name: string; allowedIps: string[]; plan?: string; expiresAt: Date | null }): Promise<{ key: string; record: KeyOut }>;
  list(): Promise<KeyOut[]>;
  /** null: no such key. */
  revoke(id: string): Promise<KeyOut | null>;
  /** null: no such key, or revoked. */
  rotate(id: string): Promise<{ key: string; record: KeyOut } | null>;
  close(): Promise<void>;
}

function parseExpiry(raw: string | undefined, now: Date): Date | null {
  if (raw === undefined) return null;
  const s = /^\d{4}-\d{2}-\d{2}$/.test(raw) ? `${raw}T23:59:59.999Z` : raw;
  const t = /^\d{4}-\d{2}-\d{2}T/.test(s) ? Date.parse(s) : NaN;
  if (!Number.isFinite(t)) throw new UsageError(`--expires must be an ISO 8601 date (YYYY-MM-DD) or date-time, got "${raw}"`, KEYS_USAGE.create);
  if (t <= now.getTime()) throw new UsageError(`--expires must be in the future, got ${new Date(t).toISOString()}`, KEYS_USAGE.create);
  return new Date(t);
}

export async function runKeys(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const usage = KEYS_USAGE[sub as keyof typeof KEYS_USAGE];
  if (!usage) throw new UsageError(sub ? `keys: unknown subcommand '${sub}' (create, list, revoke, rotate)` : 'keys needs a subcommand (create, list, revoke, rotate)');
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: sub === 'revoke' || sub === 'rotate',
      options: {
        ...(sub === 'create'
          ? { name: { type: 'string' }, 'allow-ip': { type: 'string', multiple: true }, plan: { type: 'string' }, expires: { type: 'string' } }
          : {}),
        ...(sub === 'revoke' ? {} : { json: { type: 'boolean', default: false } }),
      },
    });
  } catch (e) {
    throw new UsageError((e as Error).message.split('. ')[0], usage);
  }
  const values = parsed.values as { name?: string; 'allow-ip'?: string[]; plan?: string; expires?: string; json?: boolean };
  const positionals = parsed.positionals;
  const config = loadConfig();

  let create: Parameters<Backend['create']>[0] | undefined;
  if (sub === 'create') {
    if (!values.name?.trim()) throw new UsageError('keys create needs --name', usage);
    const allowed = values['allow-ip'] ?? [];
    for (const a of allowed) {
      try {
        parseAllowEntry(a);
      } catch (e) {
        throw new UsageError((e as Error).message, usage);
      }
    }
    const plans = loadPlanTable(config.plansFile).plans;
    if (values.plan !== undefined && !plans[values.plan.toLowerCase()]) throw new UsageError(`--plan must be one of ${Object.keys(plans).join(', ')}`, usage);
    create = { name: values.name.trim(), allowedIps: allowed, plan: values.plan?.toLowerCase(), expiresAt: parseExpiry(values.expires, new Date()) };
  }
  if ((sub === 'revoke' || sub === 'rotate') && positionals.length !== 1) throw new UsageError(`keys ${sub} needs one key id`, usage);

  const server = await runningServer(config);
  const backend = server ? viaServer(server) : await direct();
  try {
    switch (sub) {
      case 'create': {
        const { key, record } = await backend.create(create!);
        if (values.json) console.log(JSON.stringify({ key, ...record }));
        else {
          console.log(`API key created: ${record.name} (id ${record.id}, plan ${record.plan})`);
          console.log(`  ${key}`);
          console.log('This key is shown once and cannot be recovered; store it now.');
        }
        return 0;
      }
      case 'list': {
        const keys = await backend.list();
        if (values.json) console.log(JSON.stringify(keys));
        else if (!keys.length) console.log('no API keys yet: solgate keys create --name NAME');
        else for (const k of keys) console.log(`${k.id}  ${k.name}  plan=${k.plan}  ips=${k.allowedIps.join(',') || 'any'}  ${k.status === 'active' ? 'active' : k.status.toUpperCase()}`);
        return 0;
      }
      case 'revoke': {
        const id = positionals[0];
        const r = await backend.revoke(id);
        if (!r) {
          console.error(`solgate: no key with id ${id} (solgate keys list shows the ids)`);
          return 1;
        }
        console.log(`revoked ${id}`);
        return 0;
      }
      default: {
        const id = positionals[0];
        const r = await backend.rotate(id);
        if (!r) {
          console.error(`solgate: no active key with id ${id} (a revoked key cannot be rotated; solgate keys list shows the ids)`);
          return 1;
        }
        if (values.json) console.log(JSON.stringify({ key: r.key, id: r.record.id }));
        else {
          console.log(`API key ${id} regenerated; the previous key stops working now:`);
          console.log(`  ${r.key}`);
          console.log('This key is shown once and cannot be recovered; store it now.');
        }
        return 0;
      }
    }
  } finally {
    await backend.close();
  }
}

/** Through the running server's admin API. */
function viaServer(s: RunningServer): Backend {
  type Wire = KeyOut & { usage?: unknown; effectivePlan?: string };
  const out = (w: Wire): KeyOut => ({
    id: w.id, name: w.name, plan: w.plan, allowedIps: w.allowedIps, createdAt: w.createdAt, expiresAt: w.expiresAt, revokedAt: w.revokedAt, status: w.status,
  });
  const orNull = async <T>(p: Promise<T>): Promise<T | null> => {
    try {
      return await p;
    } catch (e) {
      if (e instanceof AdminCallError && (e.status === 404 || e.status === 400)) return null;
      throw e;
    }
  };
  return {
    async create(o) {
      const r = await adminCall<{ key: string; record: Wire }>(s, 'POST', '/keys', {
        name: o.name, allowedIps: o.allowedIps, ...(o.plan ? { plan: o.plan } : {}), expiresAt: o.expiresAt?.toISOString() ?? null,
      });
      return { key: r.key, record: out(r.record) };
    },
    async list() {
      return (await adminCall<{ keys: Wire[] }>(s, 'GET', '/keys')).keys.map(out);
    },
    async revoke(id) {
      const r = await orNull(adminCall<Wire>(s, 'POST', `/keys/${encodeURIComponent(id)}/revoke`));
      return r && out(r);
    },
    async rotate(id) {
      const r = await orNull(adminCall<{ key: string; record: Wire }>(s, 'POST', `/keys/${encodeURIComponent(id)}/rotate`));
      return r && { key: r.key, record: out(r.record) };
    },
    async close() {},
  };
}

/** The database itself (PostgreSQL, or an embedded directory no server holds: this process takes it). */
async function direct(): Promise<Backend> {
  const [{ openRuntime }, keys] = await Promise.all([import('./runtime.js'), import('../store/keys.js')]);
  const rt = await openRuntime({ logTo: 'stderr' });
  const out = (k: import('../store/keys.js').ApiKeyRecord): KeyOut => ({
    id: k.id,
    name: k.name,
    plan: k.plan,
    allowedIps: k.allowedIps,
    createdAt: k.createdAt.toISOString(),
    expiresAt: k.expiresAt?.toISOString() ?? null,
    revokedAt: k.revokedAt?.toISOString() ?? null,
    status: keys.keyStatus(k, new Date()),
  });
  return {
    async create(o) {
      const r = await keys.createApiKey(rt.db, o);
      return { key: r.key, record: out(r.record) };
    },
    async list() {
      return (await keys.listApiKeys(rt.db)).map(out);
    },
    async revoke(id) {
      if (!/^[0-9a-f]{16}$/.test(id)) return null;
      if (!(await keys.getApiKey(rt.db, id))) return null;
      await keys.revokeApiKey(rt.db, id);
      const k = await keys.getApiKey(rt.db, id);
      return k && out(k);
    },
    async rotate(id) {
      if (!/^[0-9a-f]{16}$/.test(id)) return null;
      const r = await keys.rotateApiKey(rt.db, id);
      return r && { key: r.key, record: out(r.record) };
    },
    close: () => rt.db.close(),
  };
}
