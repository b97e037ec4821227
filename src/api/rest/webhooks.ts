/**
 * Webhook management REST API `/v0/webhooks` (compat-facts §5): list, create, get, edit (PUT, partial allowed),
 * delete and toggle (PATCH `{active}`), each scoped to the calling API key — keys have no account, so a webhook
 * belongs to the key that created it, and another key's webhook answers 404 like an unknown id.
 *
 * Wire shape of a webhook: `{webhookID, wallet, project, webhookURL, transactionTypes, accountAddresses,
 * webhookType, authHeader, txnStatus, encoding, active}`. `wallet` is the owning key's id (the scope that stands in
 * for the reference's account wallet), `project` the key's name, `authHeader` "" when none. The create answer adds
 * `signingSecret`, the webhook's HMAC key for verifying deliveries, shown only then.
 *
 * Errors are the REST format `{error, code, details?}` (as /v1/wallet and /v0/token-metadata): 400 for every bad
 * field (src/api/rest/webhook-settings.ts), 401 key, 403 when the key's plan allows no more webhooks, 404 unknown id.
 * Webhooks per key come from the key's plan (src/accounts/plans.ts: 5 Free, 50 Developer/Business/Professional by
 * default; plans not listed get the smallest). Creates, edits, toggles and deletes cost webhook-management credits
 * through the meter; reads are free.
 */
import { isIP } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SolgateError } from '../../core/errors.js';
import type { ApiKeyRecord } from '../../store/keys.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  setWebhookActive,
  updateWebhook,
  type WebhookRecord,
} from '../../store/webhooks.js';
import type { ApiDeps } from '../deps.js';
import { createAuthenticator } from '../plugins/auth.js';
import { meterHook } from '../plugins/metering.js';
import { normalizeError } from '../plugins/errors.js';
import { restErrorBody } from '../wire/errors.js';
import { registerDeliveryRoutes } from './webhook-deliveries.js';
import { ALLOW_PRIVATE_HINT, MAX_ACCOUNT_ADDRESSES, webhookSettings, type WebhookBody, type WebhookUrlPolicy } from './webhook-settings.js';
import { resolveAndCheck, type LookupAll } from '../../net/url-checks.js';
import { SsrfError } from '../../net/ssrf-errors.js';

/** Operator settings of the webhook API (from SOLGATE_WEBHOOKS_* when the CLI passes them). */
export interface WebhookApiOptions extends Partial<WebhookUrlPolicy> {
  /** Webhooks per key by plan name; replaces {@link DEFAULT_PLAN_WEBHOOK_LIMITS} when given. */
  planLimits?: Record<string, number>;
  /** Resolver of webhook URL host names (tests); default the system resolver. */
  lookupAll?: LookupAll;
}

/** How long saving a webhook waits for its host name to resolve; a name that does not resolve in time is saved. */
const RESOLVE_TIMEOUT_MS = 5000;

declare module '../deps.js' {
  interface ApiDeps {
    /** Webhook management settings; see `src/api/rest/webhooks.ts`. Absent = https and public targets only. */
    webhooks?: WebhookApiOptions;
  }
}

/** Max webhooks per key by plan (compat-facts §7, "Max webhooks"). */
export const DEFAULT_PLAN_WEBHOOK_LIMITS: Readonly<Record<string, number>> = { free: 5, developer: 50, business: 50, professional: 50 };

/** The webhook limit of a key's plan (plans not listed get the smallest, Free's). */
export function webhookLimit(plan: string, limits: Readonly<Record<string, number>> = DEFAULT_PLAN_WEBHOOK_LIMITS): number {
  const own = limits[plan.toLowerCase()];
  return own !== undefined ? own : Math.min(...Object.values(limits));
}

/** Body size allowed on create/edit: 100,000 addresses of up to 44 characters, quoted, plus the rest. */
const WEBHOOK_BODY_LIMIT = MAX_ACCOUNT_ADDRESSES * 48 + 1024 * 1024;

const stringArray = { type: 'array', items: { type: 'string' } } as const;
const settingsProperties = {
  webhookURL: { type: 'string' },
  webhookType: { type: 'string' },
  transactionTypes: stringArray,
  accountAddresses: stringArray,
  txnStatus: { type: 'string' },
  encoding: { type: 'string' },
  authHeader: { type: ['string', 'null'] },
  active: { type: 'boolean' },
} as const;

// Unknown fields are ignored: clients send back what they read (webhookID, wallet, ...) when editing.
const createBodySchema = { type: 'object', properties: settingsProperties, required: ['webhookURL', 'accountAddresses'] } as const;
const editBodySchema = { type: 'object', properties: settingsProperties } as const;
const toggleBodySchema = { type: 'object', properties: { active: { type: 'boolean' } }, required: ['active'] } as const;
const idParamsSchema = { type: 'object', properties: { webhookID: { type: 'string' } }, required: ['webhookID'] } as const;

/** A webhook in the wire shape. */
export function webhookWire(w: WebhookRecord, key: ApiKeyRecord): Record<string, unknown> {
  return {
    webhookID: w.id,
    wallet: key.id,
    project: key.name,
    webhookURL: w.url,
    transactionTypes: w.transactionTypes,
    accountAddresses: w.accountAddresses,
    webhookType: w.webhookType,
    authHeader: w.authHeader ?? '',
    txnStatus: w.txnStatus,
    encoding: w.encoding,
    active: w.active,
    // Set when delivery switched the webhook off for its failure rate (cleared when it is switched on again).
    deactivatedReason: w.deactivatedReason,
    deactivatedAt: w.deactivatedAt?.toISOString() ?? null,
  };
}

const notFound = (id: string) => new SolgateError('NOT_FOUND', 'Webhook not found', { details: `no webhook ${id} for this API key` });

/** The /v0/webhooks interface: key auth, the six routes, REST errors. */
export async function webhooksApi(app: FastifyInstance, deps: ApiDeps): Promise<void> {
  const opts = deps.webhooks ?? {};
  const policy: WebhookUrlPolicy = { allowHttp: opts.allowHttp ?? false, allowPrivate: opts.allowPrivate ?? false };
  const limits = opts.planLimits ?? DEFAULT_PLAN_WEBHOOK_LIMITS;
  const db = deps.db;

  app.addHook('preValidation', createAuthenticator(db, 'rest'));
  // Creates, edits, toggles and deletes cost webhook-management credits; reads are free (all rate-limited).
  app.addHook('preValidation', meterHook(deps, (req) => ({
    bucket: 'rpc',
    cost: req.method === 'GET' || req.url.includes('/replay') ? null : 'webhookManagement',
    method: `webhooks.${req.method.toLowerCase()}`,
  })));
  app.setErrorHandler((err, req, reply) => {
    const e = normalizeError(err);
    if (e.code === 'INTERNAL') req.log.error({ err }, 'webhooks api: internal error');
    const { status, body } = restErrorBody(e);
    if (e.retryAfter !== undefined) reply.header('retry-after', String(e.retryAfter));
    reply.status(status).send(body);
  });

  const keyOf = (req: FastifyRequest): ApiKeyRecord => req.apiKey!;
  const idOf = (req: FastifyRequest): string => (req.params as { webhookID: string }).webhookID;

  /**
   * Unless private targets are allowed, a host name of a new or changed webhookURL is resolved and refused (400)
   * when any address is non-public (as deliveries would be). A name that does not resolve (now) is accepted:
   * deliveries resolve and check it again at every connection.
   */
  async function checkResolvedHost(url: string): Promise<void> {
    if (policy.allowPrivate) return;
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        resolveAndCheck(host, undefined, opts.lookupAll),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, RESOLVE_TIMEOUT_MS))),
      ]);
    } catch (e) {
      if (e instanceof SsrfError)
        throw new SolgateError('INVALID_PARAMS', 'Invalid webhookURL', { details: `webhookURL must be a public address; ${host} resolves to ${e.address}, which is not public (${ALLOW_PRIVATE_HINT})` });
    } finally {
      clearTimeout(timer);
    }
  }

  app.get('/v0/webhooks', async (req) => {
    const key = keyOf(req);
    return (await listWebhooks(db, key.id)).map((w) => webhookWire(w, key));
  });

  app.post('/v0/webhooks', { bodyLimit: WEBHOOK_BODY_LIMIT, schema: { body: createBodySchema } }, async (req) => {
    const key = keyOf(req);
    const settings = webhookSettings(req.body as WebhookBody, undefined, policy);
    await checkResolvedHost(settings.url);
    const limit = webhookLimit(key.plan, limits);
    const r = await createWebhook(db, key.id, settings, limit);
    if (!r.ok)
      throw new SolgateError('FORBIDDEN', 'Webhook limit reached', {
        details: `the ${key.plan} plan allows ${limit} webhooks per API key; delete one before creating another`,
      });
    // The addresses a webhook names are read from the cluster ahead of time (watch list).
    await deps.trackAddresses?.(settings.accountAddresses);
    return { ...webhookWire(r.webhook, key), signingSecret: r.webhook.secret };
  });

  app.get('/v0/webhooks/:webhookID', { schema: { params: idParamsSchema } }, async (req) => {
    const key = keyOf(req);
    const w = await getWebhook(db, key.id, idOf(req));
    if (!w) throw notFound(idOf(req));
    return webhookWire(w, key);
  });

  app.put('/v0/webhooks/:webhookID', { bodyLimit: WEBHOOK_BODY_LIMIT, schema: { params: idParamsSchema, body: editBodySchema } }, async (req) => {
    const key = keyOf(req);
    const id = idOf(req);
    const stored = await getWebhook(db, key.id, id);
    if (!stored) throw notFound(id);
    const body = (req.body ?? {}) as WebhookBody;
    const settings = webhookSettings(body, stored, policy);
    if (body.webhookURL !== undefined) await checkResolvedHost(settings.url);
    const w = await updateWebhook(db, key.id, id, settings, body.accountAddresses !== undefined);
    if (!w) throw notFound(id);
    if (body.accountAddresses !== undefined) await deps.trackAddresses?.(settings.accountAddresses);
    return webhookWire(w, key);
  });

  app.patch('/v0/webhooks/:webhookID', { schema: { params: idParamsSchema, body: toggleBodySchema } }, async (req) => {
    const key = keyOf(req);
    const w = await setWebhookActive(db, key.id, idOf(req), (req.body as { active: boolean }).active);
    if (!w) throw notFound(idOf(req));
    return webhookWire(w, key);
  });

  registerDeliveryRoutes(app, db, notFound, deps.webhookReplays);

  app.delete('/v0/webhooks/:webhookID', { schema: { params: idParamsSchema } }, async (req) => {
    const key = keyOf(req);
    if (!(await deleteWebhook(db, key.id, idOf(req)))) throw notFound(idOf(req));
    return { message: 'Webhook deleted' };
  });
}
