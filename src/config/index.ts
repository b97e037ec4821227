/**
 * Configuration: every environment variable solgate reads, with its default, read and validated once.
 * This is the only module that reads `process.env`; the variables are listed in ./variables.ts (docs/configuration.md's
 * table mirrors them; a test checks it).
 */

import { ENV_VARS } from './variables.js';

export { ENV_VARS, type EnvVar } from './variables.js';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  databaseReadUrl: string | undefined;
  minContextWaitMs: number;
  /** SOLGATE_PROOF_MEMO_PAIRS: the Poseidon pair memo's limit (src/proofs/light/poseidon.ts). */
  proofMemoPairs: number;
  dataDir: string;
  rpcUrl: string | undefined;
  grpcUrl: string | undefined;
  grpcToken: string | undefined;
  driftIntervalMs: number;
  driftSample: number;
  /** SOLGATE_DRIFT_ZK_REPAIR: `rebuild` = the ingester rebuilds the ZK Compression trees the drift detector confirms differ. */
  driftZkRepair: 'off' | 'rebuild';
  retentionHistorySlots: number;
  retentionUsageDays: number;
  partitionSlots: number;
  partitionIntervalMs: number;
  rpcUpstreamUrl: string | undefined;
  rpcUpstreamTimeoutMs: number;
  rpcUpstreamWsUrl: string | undefined;
  wsMaxConnectionsPerKey: number;
  wsMaxSubscriptions: number;
  commitment: 'confirmed' | 'finalized';
  startSlot: number | undefined;
  ingestConcurrency: number;
  ingestFetchAccounts: boolean;
  coverage: boolean;
  treeHistory: boolean;
  backfillConcurrency: number;
  historyWaitMs: number;
  pollIntervalMs: number;
  tokensFile: string;
  priceFeedsFile: string;
  /** 0 = no polling of the Pyth feed accounts. */
  pricePythPollMs: number;
  pricePythMaxAgeSeconds: number;
  priceSwapMaxAgeSlots: number;
  identitiesFile: string;
  explorerTxUrl: string;
  trustProxy: boolean | number | string;
  /** `*`, or the allowed origins (normalized, `https://*.example.com` kept as a pattern); [] = none. */
  corsOrigins: '*' | string[];
  localnetPort: number;
  localnetSlotMs: number;
  localnetFinalizedDepth: number;
  localnetLight: boolean;
  offchainFetch: boolean;
  offchainConcurrency: number;
  offchainTimeoutMs: number;
  offchainMaxBytes: number;
  offchainMaxRedirects: number;
  offchainMaxAttempts: number;
  offchainRetryBaseMs: number;
  offchainTtlSeconds: number;
  offchainAllowPrivate: boolean;
  ipfsGateway: string;
  arweaveGateway: string;
  proverUrl: string | undefined;
  zkTreesFile: string | undefined;
  zkMaxLagSlots: number;
  readyMaxLagSlots: number;
  webhooksAllowHttp: boolean;
  webhooksAllowPrivate: boolean;
  webhookConcurrency: number;
  webhookTimeoutMs: number;
  webhookPipelining: number;
  keyCacheMs: number;
  webhookRetryBaseMs: number;
  webhookRetryMaxMs: number;
  webhookRetryWindowSeconds: number;
  webhookPollMs: number;
  webhookDeactivateFailureRate: number;
  webhookDeactivateWindowSeconds: number;
  webhookDeactivateMinAttempts: number;
  webhookRetentionDays: number;
  senderRpcUrls: string[];
  senderBlockEngineUrl: string | undefined;
  senderStatusRpcUrl: string | undefined;
  senderTipAccounts: string[] | undefined;
  senderMinTipLamports: bigint;
  senderMinTipSwqosLamports: bigint;
  senderRebroadcastMs: number;
  senderMaxRebroadcastSeconds: number;
  senderUpstreamTimeoutMs: number;
  senderRateLimit: number;
  senderPort: number;
  redisUrl: string | undefined;
  plansFile: string | undefined;
  usageFlushMs: number;
  adminToken: string | undefined;
  logLevel: string;
}

export class ConfigError extends Error {}

function int(name: string, v: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be an integer in [${min}, ${max}], got "${v}"`);
  return n;
}

/** SOLGATE_RETENTION_USAGE_DAYS: 0, or enough days that the month being billed is never cut. */
function usageDays(v: string): number {
  const n = int('SOLGATE_RETENTION_USAGE_DAYS', v, 0);
  if (n > 0 && n < 32) throw new ConfigError(`SOLGATE_RETENTION_USAGE_DAYS must be 0 (keep forever) or at least 32 (the month being billed stays whole), got "${v}"`);
  return n;
}

const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** A comma-separated list of base58 addresses (undefined when unset). */
function addressList(name: string, v: string | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  const list = v.split(',').map((x) => x.trim()).filter(Boolean);
  const bad = list.find((a) => !BASE58_ADDRESS.test(a));
  if (!list.length || bad !== undefined) throw new ConfigError(`${name} must be a comma-separated list of base58 addresses${bad ? `, got "${bad}"` : ''}`);
  return list;
}

function fraction(name: string, v: string): number {
  const n = Number(v);
  if (!/^\s*\d*\.?\d+\s*$/.test(v) || !(n >= 0 && n <= 1)) throw new ConfigError(`${name} must be a number in [0, 1], got "${v}"`);
  return n;
}

function bool(name: string, v: string): boolean {
  if (v !== 'true' && v !== 'false') throw new ConfigError(`${name} must be true or false, got "${v}"`);
  return v === 'true';
}

function oneOf<T extends string>(name: string, v: string, values: readonly T[]): T {
  if (!(values as readonly string[]).includes(v)) throw new ConfigError(`${name} must be ${values.join(' or ')}, got "${v}"`);
  return v as T;
}

/** An http(s) URL prefix that a path is appended to (a trailing `/` is added when missing). */
function gatewayUrl(name: string, v: string): string {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${v}"`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(`${name} must be an http(s) URL, got "${v}"`);
  return v.endsWith('/') ? v : `${v}/`;
}

/** An optional http(s) service URL, kept as given. */
function optionalUrl(name: string, v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${v}"`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(`${name} must be an http(s) URL, got "${v}"`);
  return v;
}

/** SOLGATE_CORS_ORIGINS: `*`, `none`, or a comma-separated list of origins (scheme://host[:port], `*.` subdomain patterns). */
function corsOrigins(v: string): '*' | string[] {
  const list = v.split(',').map((x) => x.trim()).filter(Boolean);
  if (list.includes('*')) return '*';
  if (list.length === 1 && list[0].toLowerCase() === 'none') return [];
  const bad = (o: string) =>
    new ConfigError(`SOLGATE_CORS_ORIGINS must be *, none or a comma-separated list of origins like https://app.example.com or http://localhost:3000, got "${o}"`);
  return list.map((raw) => {
    const o = raw.replace(/\/+$/, '');
    const wildcard = /^[a-z][a-z0-9+.-]*:\/\/\*\./i.test(o);
    let u: URL;
    try {
      u = new URL(wildcard ? o.replace('://*.', '://wildcard.') : o);
    } catch {
      throw bad(raw);
    }
    // An origin is scheme://host[:port]: nothing after it (path, query, fragment) and no credentials.
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.pathname !== '/' || /[?#@]/.test(o) || !u.hostname) throw bad(raw);
    return wildcard ? u.origin.replace('://wildcard.', '://*.') : u.origin;
  });
}

/** The admin token: long enough not to be guessed, no whitespace (it travels in an Authorization header). */
function adminToken(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (v.length < 16 || /\s/.test(v)) throw new ConfigError('SOLGATE_ADMIN_TOKEN must be at least 16 characters without whitespace (e.g. `openssl rand -hex 32`)');
  return v;
}

/** LOG_LEVEL as set (or its default), without validating the rest: how much a failing command should print. */
export function logLevelOf(env: NodeJS.ProcessEnv = process.env): string {
  return env.LOG_LEVEL || ENV_VARS.find((e) => e.name === 'LOG_LEVEL')!.default!;
}

/** Reads and validates the environment (defaults applied). Throws ConfigError naming the bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const get = (name: string): string | undefined => {
    const v = env[name];
    if (v !== undefined && v !== '') return v;
    return ENV_VARS.find((e) => e.name === name)?.default;
  };
  const commitment = get('SOLGATE_COMMITMENT');
  if (commitment !== 'confirmed' && commitment !== 'finalized')
    throw new ConfigError(`SOLGATE_COMMITMENT must be confirmed or finalized, got "${commitment}"`);
  const start = get('SOLGATE_START_SLOT');
  const tp = get('SOLGATE_TRUST_PROXY')!;
  const fetchAccounts = get('SOLGATE_INGEST_FETCH_ACCOUNTS');
  if (fetchAccounts !== 'true' && fetchAccounts !== 'false')
    throw new ConfigError(`SOLGATE_INGEST_FETCH_ACCOUNTS must be true or false, got "${fetchAccounts}"`);
  return {
    port: int('PORT', get('PORT')!, 0, 65535),
    host: get('HOST')!,
    databaseUrl: get('DATABASE_URL'),
    databasePoolSize: int('DATABASE_POOL_SIZE', get('DATABASE_POOL_SIZE')!, 1, 1000),
    databaseReadUrl: get('DATABASE_READ_URL'),
    minContextWaitMs: int('SOLGATE_MIN_CONTEXT_WAIT_MS', get('SOLGATE_MIN_CONTEXT_WAIT_MS')!, 0, 60_000),
    proofMemoPairs: int('SOLGATE_PROOF_MEMO_PAIRS', get('SOLGATE_PROOF_MEMO_PAIRS')!, 4096, 16_777_216),
    dataDir: get('SOLGATE_DATA_DIR')!,
    rpcUrl: get('SOLANA_RPC_URL'),
    grpcUrl: optionalUrl('SOLGATE_GRPC_URL', get('SOLGATE_GRPC_URL')),
    grpcToken: get('SOLGATE_GRPC_TOKEN'),
    driftIntervalMs: int('SOLGATE_DRIFT_INTERVAL_MS', get('SOLGATE_DRIFT_INTERVAL_MS')!, 0),
    driftSample: int('SOLGATE_DRIFT_SAMPLE', get('SOLGATE_DRIFT_SAMPLE')!, 1, 10_000),
    driftZkRepair: oneOf('SOLGATE_DRIFT_ZK_REPAIR', get('SOLGATE_DRIFT_ZK_REPAIR')!, ['off', 'rebuild'] as const),
    retentionHistorySlots: int('SOLGATE_RETENTION_HISTORY_SLOTS', get('SOLGATE_RETENTION_HISTORY_SLOTS')!, 0),
    retentionUsageDays: usageDays(get('SOLGATE_RETENTION_USAGE_DAYS')!),
    partitionSlots: int('SOLGATE_PARTITION_SLOTS', get('SOLGATE_PARTITION_SLOTS')!, 1),
    partitionIntervalMs: int('SOLGATE_PARTITION_INTERVAL_MS', get('SOLGATE_PARTITION_INTERVAL_MS')!, 0),
    rpcUpstreamUrl: get('SOLGATE_RPC_UPSTREAM_URL'),
    rpcUpstreamTimeoutMs: int('SOLGATE_RPC_UPSTREAM_TIMEOUT_MS', get('SOLGATE_RPC_UPSTREAM_TIMEOUT_MS')!, 100, 600_000),
    rpcUpstreamWsUrl: get('SOLGATE_RPC_UPSTREAM_WS_URL'),
    wsMaxConnectionsPerKey: int('SOLGATE_WS_MAX_CONNECTIONS_PER_KEY', get('SOLGATE_WS_MAX_CONNECTIONS_PER_KEY')!, 1, 1_000_000),
    wsMaxSubscriptions: int('SOLGATE_WS_MAX_SUBSCRIPTIONS', get('SOLGATE_WS_MAX_SUBSCRIPTIONS')!, 1, 1_000_000),
    commitment,
    startSlot: start === undefined ? undefined : int('SOLGATE_START_SLOT', start, 0),
    ingestConcurrency: int('SOLGATE_INGEST_CONCURRENCY', get('SOLGATE_INGEST_CONCURRENCY')!, 1, 256),
    ingestFetchAccounts: fetchAccounts === 'true',
    coverage: bool('SOLGATE_COVERAGE', get('SOLGATE_COVERAGE')!),
    treeHistory: bool('SOLGATE_TREE_HISTORY', get('SOLGATE_TREE_HISTORY')!),
    backfillConcurrency: int('SOLGATE_BACKFILL_CONCURRENCY', get('SOLGATE_BACKFILL_CONCURRENCY')!, 1, 256),
    historyWaitMs: int('SOLGATE_HISTORY_WAIT_MS', get('SOLGATE_HISTORY_WAIT_MS')!, 0, 600_000),
    pollIntervalMs: int('SOLGATE_POLL_INTERVAL_MS', get('SOLGATE_POLL_INTERVAL_MS')!, 10),
    tokensFile: get('SOLGATE_TOKENS_FILE')!,
    priceFeedsFile: get('SOLGATE_PRICE_FEEDS_FILE')!,
    pricePythPollMs: int('SOLGATE_PRICE_PYTH_POLL_MS', get('SOLGATE_PRICE_PYTH_POLL_MS')!, 0),
    pricePythMaxAgeSeconds: int('SOLGATE_PRICE_PYTH_MAX_AGE_SECONDS', get('SOLGATE_PRICE_PYTH_MAX_AGE_SECONDS')!, 1),
    priceSwapMaxAgeSlots: int('SOLGATE_PRICE_SWAP_MAX_AGE_SLOTS', get('SOLGATE_PRICE_SWAP_MAX_AGE_SLOTS')!, 0),
    identitiesFile: get('SOLGATE_IDENTITIES_FILE')!,
    explorerTxUrl: get('SOLGATE_EXPLORER_TX_URL')!,
    trustProxy: tp === 'true' ? true : tp === 'false' ? false : /^\d+$/.test(tp) ? Number(tp) : tp,
    corsOrigins: corsOrigins(get('SOLGATE_CORS_ORIGINS')!),
    localnetPort: int('SOLGATE_LOCALNET_PORT', get('SOLGATE_LOCALNET_PORT')!, 0, 65535),
    localnetSlotMs: int('SOLGATE_LOCALNET_SLOT_MS', get('SOLGATE_LOCALNET_SLOT_MS')!, 10),
    localnetFinalizedDepth: int('SOLGATE_LOCALNET_FINALIZED_DEPTH', get('SOLGATE_LOCALNET_FINALIZED_DEPTH')!, 0, 10_000),
    localnetLight: bool('SOLGATE_LOCALNET_LIGHT', get('SOLGATE_LOCALNET_LIGHT')!),
    offchainFetch: bool('SOLGATE_OFFCHAIN_FETCH', get('SOLGATE_OFFCHAIN_FETCH')!),
    offchainConcurrency: int('SOLGATE_OFFCHAIN_CONCURRENCY', get('SOLGATE_OFFCHAIN_CONCURRENCY')!, 1, 256),
    offchainTimeoutMs: int('SOLGATE_OFFCHAIN_TIMEOUT_MS', get('SOLGATE_OFFCHAIN_TIMEOUT_MS')!, 100),
    offchainMaxBytes: int('SOLGATE_OFFCHAIN_MAX_BYTES', get('SOLGATE_OFFCHAIN_MAX_BYTES')!, 1024),
    offchainMaxRedirects: int('SOLGATE_OFFCHAIN_MAX_REDIRECTS', get('SOLGATE_OFFCHAIN_MAX_REDIRECTS')!, 0, 20),
    offchainMaxAttempts: int('SOLGATE_OFFCHAIN_MAX_ATTEMPTS', get('SOLGATE_OFFCHAIN_MAX_ATTEMPTS')!, 1, 100),
    offchainRetryBaseMs: int('SOLGATE_OFFCHAIN_RETRY_BASE_MS', get('SOLGATE_OFFCHAIN_RETRY_BASE_MS')!, 1),
    offchainTtlSeconds: int('SOLGATE_OFFCHAIN_TTL_SECONDS', get('SOLGATE_OFFCHAIN_TTL_SECONDS')!, 0),
    offchainAllowPrivate: bool('SOLGATE_OFFCHAIN_ALLOW_PRIVATE', get('SOLGATE_OFFCHAIN_ALLOW_PRIVATE')!),
    ipfsGateway: gatewayUrl('SOLGATE_IPFS_GATEWAY', get('SOLGATE_IPFS_GATEWAY')!),
    arweaveGateway: gatewayUrl('SOLGATE_ARWEAVE_GATEWAY', get('SOLGATE_ARWEAVE_GATEWAY')!),
    proverUrl: optionalUrl('PROVER_URL', get('PROVER_URL')),
    zkTreesFile: get('SOLGATE_ZK_TREES') || undefined,
    zkMaxLagSlots: int('SOLGATE_ZK_MAX_LAG_SLOTS', get('SOLGATE_ZK_MAX_LAG_SLOTS')!, 0),
    readyMaxLagSlots: int('SOLGATE_READY_MAX_LAG_SLOTS', get('SOLGATE_READY_MAX_LAG_SLOTS')!, 0),
    webhooksAllowHttp: bool('SOLGATE_WEBHOOKS_ALLOW_HTTP', get('SOLGATE_WEBHOOKS_ALLOW_HTTP')!),
    webhooksAllowPrivate: bool('SOLGATE_WEBHOOKS_ALLOW_PRIVATE', get('SOLGATE_WEBHOOKS_ALLOW_PRIVATE')!),
    webhookConcurrency: int('SOLGATE_WEBHOOK_CONCURRENCY', get('SOLGATE_WEBHOOK_CONCURRENCY')!, 0, 1024),
    webhookTimeoutMs: int('SOLGATE_WEBHOOK_TIMEOUT_MS', get('SOLGATE_WEBHOOK_TIMEOUT_MS')!, 100, 600_000),
    webhookPipelining: int('SOLGATE_WEBHOOK_PIPELINING', get('SOLGATE_WEBHOOK_PIPELINING')!, 1, 100),
    keyCacheMs: int('SOLGATE_KEY_CACHE_MS', get('SOLGATE_KEY_CACHE_MS')!, 0, 60_000),
    webhookRetryBaseMs: int('SOLGATE_WEBHOOK_RETRY_BASE_MS', get('SOLGATE_WEBHOOK_RETRY_BASE_MS')!, 1),
    webhookRetryMaxMs: int('SOLGATE_WEBHOOK_RETRY_MAX_MS', get('SOLGATE_WEBHOOK_RETRY_MAX_MS')!, 1),
    webhookRetryWindowSeconds: int('SOLGATE_WEBHOOK_RETRY_WINDOW_SECONDS', get('SOLGATE_WEBHOOK_RETRY_WINDOW_SECONDS')!, 0),
    webhookPollMs: int('SOLGATE_WEBHOOK_POLL_MS', get('SOLGATE_WEBHOOK_POLL_MS')!, 10),
    webhookDeactivateFailureRate: fraction('SOLGATE_WEBHOOK_DEACTIVATE_FAILURE_RATE', get('SOLGATE_WEBHOOK_DEACTIVATE_FAILURE_RATE')!),
    webhookDeactivateWindowSeconds: int('SOLGATE_WEBHOOK_DEACTIVATE_WINDOW_SECONDS', get('SOLGATE_WEBHOOK_DEACTIVATE_WINDOW_SECONDS')!, 1),
    webhookDeactivateMinAttempts: int('SOLGATE_WEBHOOK_DEACTIVATE_MIN_ATTEMPTS', get('SOLGATE_WEBHOOK_DEACTIVATE_MIN_ATTEMPTS')!, 1),
    webhookRetentionDays: int('SOLGATE_WEBHOOK_RETENTION_DAYS', get('SOLGATE_WEBHOOK_RETENTION_DAYS')!, 1),
    senderRpcUrls: (get('SOLGATE_SENDER_RPC_URLS') ?? '').split(',').map((x) => x.trim()).filter(Boolean).map((u) => optionalUrl('SOLGATE_SENDER_RPC_URLS', u)!),
    senderBlockEngineUrl: optionalUrl('SOLGATE_SENDER_BLOCK_ENGINE_URL', get('SOLGATE_SENDER_BLOCK_ENGINE_URL')),
    senderStatusRpcUrl: optionalUrl('SOLGATE_SENDER_STATUS_RPC_URL', get('SOLGATE_SENDER_STATUS_RPC_URL')),
    senderTipAccounts: addressList('SOLGATE_SENDER_TIP_ACCOUNTS', get('SOLGATE_SENDER_TIP_ACCOUNTS')),
    senderMinTipLamports: BigInt(int('SOLGATE_SENDER_MIN_TIP_LAMPORTS', get('SOLGATE_SENDER_MIN_TIP_LAMPORTS')!, 0)),
    senderMinTipSwqosLamports: BigInt(int('SOLGATE_SENDER_MIN_TIP_SWQOS_LAMPORTS', get('SOLGATE_SENDER_MIN_TIP_SWQOS_LAMPORTS')!, 0)),
    senderRebroadcastMs: int('SOLGATE_SENDER_REBROADCAST_MS', get('SOLGATE_SENDER_REBROADCAST_MS')!, 50),
    senderMaxRebroadcastSeconds: int('SOLGATE_SENDER_MAX_REBROADCAST_SECONDS', get('SOLGATE_SENDER_MAX_REBROADCAST_SECONDS')!, 0),
    senderUpstreamTimeoutMs: int('SOLGATE_SENDER_UPSTREAM_TIMEOUT_MS', get('SOLGATE_SENDER_UPSTREAM_TIMEOUT_MS')!, 50),
    senderRateLimit: int('SOLGATE_SENDER_RATE_LIMIT', get('SOLGATE_SENDER_RATE_LIMIT')!, 1),
    senderPort: int('SOLGATE_SENDER_PORT', get('SOLGATE_SENDER_PORT')!, 0, 65535),
    redisUrl: get('REDIS_URL'),
    plansFile: get('SOLGATE_PLANS_FILE') || undefined,
    usageFlushMs: int('SOLGATE_USAGE_FLUSH_MS', get('SOLGATE_USAGE_FLUSH_MS')!, 100),
    adminToken: adminToken(get('SOLGATE_ADMIN_TOKEN')),
    logLevel: get('LOG_LEVEL')!,
  };
}
