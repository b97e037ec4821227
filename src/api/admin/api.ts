/**
 * The admin JSON API under `/admin/api` (the dashboard's backend; usable with curl too). Every route needs
 * `Authorization: Bearer <SOLGATE_ADMIN_TOKEN>` (401 otherwise); errors are the REST format `{error, code, details?}`.
 *
 *  - `GET    /admin/api/plans`                      the plan table (names, monthly credits, rates, webhook limits)
 *  - `GET    /admin/api/keys`                       every key: plan, allow-list, expiry, revocation, status and
 *                                                   month-to-date calls/credits against the plan's monthly credits
 *  - `POST   /admin/api/keys`                       `{name, plan?, allowedIps?, expiresAt?}` → 201 `{key, record}`;
 *                                                   `key` is the only copy of the secret that will ever exist
 *  - `PATCH  /admin/api/keys/:id`                   `{name?, plan?, allowedIps?, expiresAt? (null = never)}`
 *  - `POST   /admin/api/keys/:id/revoke`            revokes at once (idempotent); the key then answers 401
 *  - `POST   /admin/api/keys/:id/rotate`            new secret shown once, the old one fails at once (live keys only)
 *  - `GET    /admin/api/keys/:id/usage?from&to`     usage per UTC day (every day of the range, zeros included) and
 *                                                   per method; default the last 30 days, at most 366
 *  - `GET    /admin/api/webhooks?keyId`             every key's webhooks (or one key's) with delivery counts
 *  - `GET    /admin/api/webhooks/:id/deliveries`    a webhook's delivery log (`limit`, `state`, `before` as in
 *                                                   /v0/webhooks/{id}/deliveries), each with its attempts
 *  - `POST   /admin/api/identities`                 `{identities: [{address, name, type, category, tags?}]}` (at
 *                                                   most 10,000 a request) added to the known-entity registry, or
 *                                                   replacing entries of the same address; all or nothing: 400
 *                                                   naming the bad rows → `{imported}`
 */
import { DELIVERIES_QUERY, deliveryPage, type DeliveriesQuery } from '../rest/webhook-deliveries.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SolgateError } from '../../core/errors.js';
import type { Db } from '../../store/db.js';
import { createApiKey, getApiKey, keyStatus, listApiKeys, revokeApiKey, rotateApiKey, updateApiKey, type ApiKeyRecord } from '../../store/keys.js';
import { usageOf } from '../../store/usage.js';
import { getAnyWebhook, listAllWebhooks, usageTotalsSince, type WebhookSummary } from '../../store/admin.js';
import { planOf, type PlanTable } from '../../accounts/plans.js';
import { parseAllowEntry } from '../plugins/ip-allow.js';
import { identitiesFromList } from '../../identity/import-file.js';
import { upsertIdentities } from '../../store/identities.js';

const DAY_MS = 86_400_000;
const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;
const MAX_RANGE_DAYS = 366;
const MAX_ALLOWED_IPS = 100;
/** Identities per admin import request (the CLI sends a file in requests of this size). */
export const MAX_IDENTITIES = 10_000;
/** Body limit of an identities import request (the CLI keeps each request under it). */
export const IDENTITIES_BODY_LIMIT = 4 * 1024 * 1024;

const utcDay = (d: Date) => d.toISOString().slice(0, 10);
const bad = (message: string, details?: string) => new SolgateError('INVALID_ARGUMENT', message, { details });
const keyNotFound = (id: string) => new SolgateError('NOT_FOUND', 'API key not found', { details: `no key ${id}` });

/** A name that says what the key is for: 3–100 characters once trimmed, no control characters. */
function checkName(raw: string): string {
  const name = raw.trim();
  if (name.length < 3 || name.length > 100) throw bad("Invalid body parameter 'name'", 'give the key a descriptive name of 3 to 100 characters');
  if (/[\u0000-\u001f\u007f]/.test(name)) throw bad("Invalid body parameter 'name'", 'the name may not contain control characters');
  return name;
}

/** Allow-list entries (addresses or CIDR ranges), trimmed, duplicates and blanks dropped. */
function checkAllowedIps(list: string[]): string[] {
  const out: string[] = [];
  for (const raw of list) {
    const e = raw.trim();
    if (!e) continue;
    try {
      parseAllowEntry(e);
    } catch (err) {
      throw bad("Invalid body parameter 'allowedIps'", (err as Error).message);
    }
    if (!out.includes(e)) out.push(e);
  }
  if (out.length > MAX_ALLOWED_IPS) throw bad("Invalid body parameter 'allowedIps'", `at most ${MAX_ALLOWED_IPS} entries`);
  return out;
}

/** An expiry in the future (ISO 8601 date or date-time; a bare date means the end of that UTC day), or null. */
function checkExpiry(raw: string | null, now: Date): Date | null {
  if (raw === null) return null;
  const s = DAY_RE.test(raw) ? `${raw}T23:59:59.999Z` : raw;
  const t = /^\d{4}-\d{2}-\d{2}T/.test(s) ? Date.parse(s) : NaN;
  if (!Number.isFinite(t)) throw bad("Invalid body parameter 'expiresAt'", 'an ISO 8601 date (YYYY-MM-DD) or date-time, or null for no expiry');
  const d = new Date(t);
  if (d <= now) throw bad("Invalid body parameter 'expiresAt'", 'the expiry must be in the future');
  return d;
}

function parseDay(name: string, s: string): number {
  const t = Date.parse(`${s}T00:00:00Z`);
  if (!DAY_RE.test(s) || !Number.isFinite(t) || utcDay(new Date(t)) !== s) throw bad(`Invalid query parameter '${name}'`, 'a UTC day, YYYY-MM-DD');
  return t;
}

function webhookWire(w: WebhookSummary) {
  return {
    webhookID: w.id,
    keyId: w.keyId,
    keyName: w.keyName,
    webhookURL: w.url,
    webhookType: w.webhookType,
    transactionTypes: w.transactionTypes,
    txnStatus: w.txnStatus,
    active: w.active,
    accountAddressCount: w.addressCount,
    createdAt: w.createdAt.toISOString(),
    deactivatedReason: w.deactivatedReason,
    deactivatedAt: w.deactivatedAt?.toISOString() ?? null,
    counts: w.counts,
    lastAttemptAt: w.lastAttemptAt?.toISOString() ?? null,
  };
}

export interface AdminApiOptions {
  db: Db;
  plans: PlanTable;
  now?: () => Date;
}

export function registerAdminApi(app: FastifyInstance, o: AdminApiOptions): void {
  const { db, plans } = o;
  const now = o.now ?? (() => new Date());
  const planNames = Object.keys(plans.plans);
  const idParams = { type: 'object', properties: { id: { type: 'string', maxLength: 64 } }, required: ['id'] } as const;
  const idOf = (req: FastifyRequest) => (req.params as { id: string }).id;

  function keyWire(k: ApiKeyRecord, usage: { calls: number; credits: number } | undefined, at: Date) {
    const plan = planOf(plans, k.plan);
    return {
      id: k.id,
      name: k.name,
      plan: k.plan,
      // The plan whose limits apply (the fallback plan when the key's plan is not in the table).
      effectivePlan: plan.name,
      allowedIps: k.allowedIps,
      createdAt: k.createdAt.toISOString(),
      expiresAt: k.expiresAt?.toISOString() ?? null,
      revokedAt: k.revokedAt?.toISOString() ?? null,
      status: keyStatus(k, at),
      usage: { month: utcDay(at).slice(0, 7), calls: usage?.calls ?? 0, credits: usage?.credits ?? 0, monthlyCredits: plan.monthlyCredits },
    };
  }

  async function oneKeyWire(k: ApiKeyRecord) {
    const at = now();
    const usage = await usageTotalsSince(db, `${utcDay(at).slice(0, 7)}-01`);
    return keyWire(k, usage.get(k.id), at);
  }

  app.get('/admin/api/plans', async () => ({
    fallbackPlan: plans.fallbackPlan,
    plans: Object.values(plans.plans).map((p) => ({ name: p.name, monthlyCredits: p.monthlyCredits, perSecond: p.perSecond, maxWebhooks: p.maxWebhooks, features: p.features })),
  }));

  app.get('/admin/api/keys', async () => {
    const at = now();
    const [keys, usage] = await Promise.all([listApiKeys(db), usageTotalsSince(db, `${utcDay(at).slice(0, 7)}-01`)]);
    return { keys: keys.map((k) => keyWire(k, usage.get(k.id), at)) };
  });

  const keyFields = {
    name: { type: 'string', maxLength: 200 },
    plan: { type: 'string', enum: planNames },
    allowedIps: { type: 'array', items: { type: 'string', maxLength: 64 }, maxItems: 1000 },
    expiresAt: { type: ['string', 'null'], maxLength: 40 },
  } as const;

  app.post(
    '/admin/api/keys',
    { schema: { body: { type: 'object', properties: keyFields, required: ['name'], additionalProperties: false } } },
    async (req, reply) => {
      const b = req.body as { name: string; plan?: string; allowedIps?: string[]; expiresAt?: string | null };
      const at = now();
      const created = await createApiKey(db, {
        name: checkName(b.name),
        plan: b.plan ?? (plans.plans.developer ? 'developer' : plans.fallbackPlan),
        allowedIps: checkAllowedIps(b.allowedIps ?? []),
        expiresAt: checkExpiry(b.expiresAt ?? null, at),
      });
      req.log.info({ keyId: created.record.id, name: created.record.name, plan: created.record.plan }, 'admin: key created');
      return reply.status(201).send({ key: created.key, record: keyWire(created.record, undefined, at) });
    },
  );

  app.patch(
    '/admin/api/keys/:id',
    { schema: { params: idParams, body: { type: 'object', properties: keyFields, additionalProperties: false, minProperties: 1 } } },
    async (req) => {
      const b = req.body as { name?: string; plan?: string; allowedIps?: string[]; expiresAt?: string | null };
      const rec = await updateApiKey(db, idOf(req), {
        name: b.name === undefined ? undefined : checkName(b.name),
        plan: b.plan,
        allowedIps: b.allowedIps === undefined ? undefined : checkAllowedIps(b.allowedIps),
        expiresAt: b.expiresAt === undefined ? undefined : checkExpiry(b.expiresAt, now()),
      });
      if (!rec) throw keyNotFound(idOf(req));
      req.log.info({ keyId: rec.id, fields: Object.keys(b) }, 'admin: key updated');
      return oneKeyWire(rec);
    },
  );

  app.post('/admin/api/keys/:id/revoke', { schema: { params: idParams } }, async (req) => {
    const id = idOf(req);
    if (!(await getApiKey(db, id))) throw keyNotFound(id);
    if (await revokeApiKey(db, id)) req.log.info({ keyId: id }, 'admin: key revoked');
    return oneKeyWire((await getApiKey(db, id))!);
  });

  app.post('/admin/api/keys/:id/rotate', { schema: { params: idParams } }, async (req) => {
    const id = idOf(req);
    const k = await getApiKey(db, id);
    if (!k) throw keyNotFound(id);
    if (k.revokedAt) throw bad('A revoked key cannot be rotated', `key ${id} was revoked; create a new key instead`);
    const r = await rotateApiKey(db, id);
    if (!r) throw bad('A revoked key cannot be rotated', `key ${id} was revoked; create a new key instead`);
    req.log.info({ keyId: id }, 'admin: key rotated');
    return { key: r.key, record: await oneKeyWire(r.record) };
  });

  app.get(
    '/admin/api/keys/:id/usage',
    {
      schema: {
        params: idParams,
        querystring: { type: 'object', properties: { from: { type: 'string', maxLength: 10 }, to: { type: 'string', maxLength: 10 } }, additionalProperties: false },
      },
    },
    async (req) => {
      const id = idOf(req);
      if (!(await getApiKey(db, id))) throw keyNotFound(id);
      const q = req.query as { from?: string; to?: string };
      const to = q.to !== undefined ? parseDay('to', q.to) : Date.parse(`${utcDay(now())}T00:00:00Z`);
      const from = q.from !== undefined ? parseDay('from', q.from) : to - 29 * DAY_MS;
      if (from > to) throw bad("Invalid query parameter 'from'", "'from' must not be after 'to'");
      const span = Math.round((to - from) / DAY_MS) + 1;
      if (span > MAX_RANGE_DAYS) throw bad("Invalid query parameter 'from'", `at most ${MAX_RANGE_DAYS} days per request`);
      const rows = await usageOf(db, id, utcDay(new Date(from)), utcDay(new Date(to)));
      const days = Array.from({ length: span }, (_, i) => ({
        day: utcDay(new Date(from + i * DAY_MS)),
        calls: 0,
        credits: 0,
        methods: [] as { method: string; calls: number; credits: number }[],
      }));
      const byDay = new Map(days.map((d) => [d.day, d]));
      const methods = new Map<string, { method: string; calls: number; credits: number }>();
      const total = { calls: 0, credits: 0 };
      for (const r of rows) {
        const d = byDay.get(r.day);
        if (!d) continue;
        d.calls += r.calls;
        d.credits += r.credits;
        d.methods.push({ method: r.method, calls: r.calls, credits: r.credits });
        const m = methods.get(r.method) ?? { method: r.method, calls: 0, credits: 0 };
        m.calls += r.calls;
        m.credits += r.credits;
        methods.set(r.method, m);
        total.calls += r.calls;
        total.credits += r.credits;
      }
      return {
        keyId: id,
        from: utcDay(new Date(from)),
        to: utcDay(new Date(to)),
        total,
        days,
        methods: [...methods.values()].sort((a, b) => b.credits - a.credits || b.calls - a.calls || a.method.localeCompare(b.method)),
      };
    },
  );

  app.get(
    '/admin/api/webhooks',
    { schema: { querystring: { type: 'object', properties: { keyId: { type: 'string', maxLength: 64 } }, additionalProperties: false } } },
    async (req) => {
      const { keyId } = req.query as { keyId?: string };
      if (keyId !== undefined && !(await getApiKey(db, keyId))) throw keyNotFound(keyId);
      return { webhooks: (await listAllWebhooks(db, keyId)).map(webhookWire) };
    },
  );

  app.get(
    '/admin/api/webhooks/:id/deliveries',
    {
      schema: {
        params: idParams,
        querystring: { ...DELIVERIES_QUERY, additionalProperties: false },
      },
    },
    async (req) => {
      const w = await getAnyWebhook(db, idOf(req));
      if (!w) throw new SolgateError('NOT_FOUND', 'Webhook not found', { details: `no webhook ${idOf(req)}` });
      return { webhook: webhookWire(w), ...(await deliveryPage(db, w.id, req.query as DeliveriesQuery)) };
    },
  );

  app.post(
    '/admin/api/identities',
    {
      bodyLimit: IDENTITIES_BODY_LIMIT,
      schema: { body: { type: 'object', properties: { identities: { type: 'array', maxItems: MAX_IDENTITIES } }, required: ['identities'], additionalProperties: false } },
    },
    async (req) => {
      const { identities, errors } = identitiesFromList((req.body as { identities: unknown[] }).identities);
      if (errors.length) throw bad(`${errors.length} invalid identit${errors.length === 1 ? 'y' : 'ies'}; nothing imported`, errors.slice(0, 20).join('; '));
      const imported = await upsertIdentities(db, identities);
      req.log.info({ imported }, 'admin: identities imported');
      return { imported };
    },
  );
}
