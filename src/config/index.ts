/**
 * Configuration: every environment variable solgate reads, with its default, read and validated once.
 * This is the only module that reads `process.env`; docs/configuration.md's table is this list (a test checks it).
 */

export interface EnvVar {
  name: string;
  default: string | undefined;
  description: string;
}

/** The table of variables (docs/configuration.md mirrors it; `solgate config` prints it). */
export const ENV_VARS: EnvVar[] = [
  { name: 'PORT', default: '8080', description: 'HTTP port of the gateway' },
  { name: 'HOST', default: '0.0.0.0', description: 'Interface the HTTP server binds to' },
  { name: 'DATABASE_URL', default: undefined, description: 'PostgreSQL connection string; unset = embedded PostgreSQL (PGlite) in SOLGATE_DATA_DIR' },
  { name: 'DATABASE_POOL_SIZE', default: '10', description: 'Connections in the PostgreSQL pool' },
  { name: 'DATABASE_READ_URL', default: undefined, description: 'A PostgreSQL streaming replica of DATABASE_URL that an API-only `serve` reads the index from (Wallet REST, DAS, ZK Compression and index-answered JSON-RPC; keys, usage and webhooks stay on DATABASE_URL; docs/operations.md); unset = DATABASE_URL' },
  { name: 'SOLGATE_PROOF_MEMO_PAIRS', default: '524288', description: 'Most Poseidon (left, right) → parent results a serving process remembers for the ZK Compression proof methods (96 bytes each: 48 MiB at the default; the table starts at 4,096 and grows only as used; every proof is still verified to its root). Rounded down to a power of two, 4096–16777216' },
  { name: 'SOLGATE_MIN_CONTEXT_WAIT_MS', default: '2000', description: 'How long a JSON-RPC call answered from the index, or a Wallet REST request, waits for the index (DATABASE_READ_URL\'s, else DATABASE_URL\'s) to reach its minContextSlot before answering -32016 "Minimum context slot has not been reached" (Wallet REST: 503)' },
  { name: 'SOLGATE_DATA_DIR', default: './.data', description: 'Directory of the embedded database (used when DATABASE_URL is unset)' },
  { name: 'SOLANA_RPC_URL', default: undefined, description: 'Cluster JSON-RPC URL to index; unset = the built-in localnet (serve --demo) or no ingestion (serve)' },
  { name: 'SOLGATE_GRPC_URL', default: undefined, description: 'Yellowstone gRPC (Geyser) endpoint to stream blocks from instead of polling SOLANA_RPC_URL, which still fills what the stream misses and reads accounts (docs/operations.md); unset = poll' },
  { name: 'SOLGATE_GRPC_TOKEN', default: undefined, description: 'The x-token the SOLGATE_GRPC_URL endpoint expects, if any' },
  { name: 'SOLGATE_DRIFT_INTERVAL_MS', default: '60000', description: 'How often a process that ingests compares a sample of the index (SOL balances, token accounts, DAS asset owners, Bubblegum and ZK Compression tree roots) with the cluster at the same slot, counting differences and repairing those it can (docs/operations.md); 0 = never' },
  { name: 'SOLGATE_DRIFT_SAMPLE', default: '100', description: 'Rows of each account kind the drift detector compares per round (trees: 2 of each kind)' },
  { name: 'SOLGATE_RETENTION_HISTORY_SLOTS', default: '0', description: 'Transaction history kept (transactions, wallet activity and transfers), in slots behind the indexed slot; older partitions are dropped and history answers say partial (docs/storage.md); 0 = keep forever' },
  { name: 'SOLGATE_RETENTION_USAGE_DAYS', default: '0', description: 'Usage rows (credits per key, day and method) kept, in days (at least 32, so the month being billed stays whole); 0 = keep forever' },
  { name: 'SOLGATE_PARTITION_SLOTS', default: '432000', description: 'Width in slots of the partitions of the history tables created from now on (432000 = one epoch, about two days of mainnet; docs/storage.md)' },
  { name: 'SOLGATE_PARTITION_INTERVAL_MS', default: '60000', description: 'How often a process that ingests creates the next partitions and applies the retention settings (docs/storage.md); 0 = never (new rows then all go to the DEFAULT partitions)' },
  { name: 'SOLGATE_RPC_UPSTREAM_URL', default: undefined, description: 'Where the standard Solana JSON-RPC methods sent to `/` are forwarded (docs/rpc.md); unset = SOLANA_RPC_URL (or the demo chain); neither = they answer -32601' },
  { name: 'SOLGATE_RPC_UPSTREAM_WS_URL', default: undefined, description: 'The cluster PubSub (WebSocket) endpoint the gateway\'s WebSocket subscriptions are bridged to (docs/rpc.md); unset = the upstream JSON-RPC URL with the ws/wss scheme' },
  { name: 'SOLGATE_WS_MAX_CONNECTIONS_PER_KEY', default: '100', description: 'Open WebSocket connections per API key (more are closed with 1008)' },
  { name: 'SOLGATE_WS_MAX_SUBSCRIPTIONS', default: '1000', description: 'Subscriptions per WebSocket connection (more are refused with -32602)' },
  { name: 'SOLGATE_RPC_UPSTREAM_TIMEOUT_MS', default: '30000', description: 'Deadline of one forwarded standard JSON-RPC request, retries included (a later answer is -32003)' },
  { name: 'SOLGATE_COMMITMENT', default: 'confirmed', description: 'Commitment used when polling the cluster (confirmed | finalized)' },
  { name: 'SOLGATE_START_SLOT', default: undefined, description: 'Slot to start indexing from when no checkpoint exists; unset = the current tip' },
  { name: 'SOLGATE_INGEST_CONCURRENCY', default: '8', description: 'getBlock requests in flight while catching up' },
  { name: 'SOLGATE_INGEST_FETCH_ACCOUNTS', default: 'true', description: 'After each polled block, fetch (getMultipleAccounts) the accounts its transactions wrote for the asset programs (Token Metadata, MPL Core, inscriptions, Token-2022 mints): true | false' },
  { name: 'SOLGATE_COVERAGE', default: 'true', description: 'With SOLANA_RPC_URL and an index that began after the cluster\'s first slot: read an address\'s current state from the cluster on its first request, and its history back to its first transaction (backfill) when history is asked for (docs/coverage.md): true | false' },
  { name: 'SOLGATE_BACKFILL_CONCURRENCY', default: '8', description: 'getTransaction requests in flight per address being backfilled' },
  { name: 'SOLGATE_TREE_HISTORY', default: 'true', description: 'With SOLGATE_COVERAGE, on an index that began after the cluster\'s first slot: before the first live block, read the ZK Compression trees\' history and queue the Bubblegum trees created before the origin for backfill (docs/coverage.md; on mainnet a long read): true | false' },
  { name: 'SOLGATE_HISTORY_WAIT_MS', default: '5000', description: 'How long a history request waits for its address\'s backfill before answering as partial (x-solgate-coverage)' },
  { name: 'SOLGATE_POLL_INTERVAL_MS', default: '400', description: 'How often the poller asks for new slots when caught up' },
  { name: 'SOLGATE_TOKENS_FILE', default: 'data/tokens.json', description: 'Token registry: symbols, names, logos and price overrides (USD) by mint (JSON); reloaded when it changes. A priceUsd here wins over the chain-derived prices' },
  { name: 'SOLGATE_PRICE_FEEDS_FILE', default: 'data/pyth-feeds.json', description: 'Pyth feeds of the chain-derived prices: mint -> Pyth */USD feed id and its PriceUpdateV2 account (JSON)' },
  { name: 'SOLGATE_PRICE_PYTH_POLL_MS', default: '10000', description: 'How often serve/ingest read the feed accounts of SOLGATE_PRICE_FEEDS_FILE from the cluster RPC (getMultipleAccounts); 0 = never (Pyth prices then come only from ingested account updates)' },
  { name: 'SOLGATE_PRICE_PYTH_MAX_AGE_SECONDS', default: '300', description: 'A Pyth price published longer ago than this is not used' },
  { name: 'SOLGATE_PRICE_SWAP_MAX_AGE_SLOTS', default: '9000', description: 'A swap-derived price more than this many slots behind the indexed slot is not used (9000 slots ≈ 1 hour)' },
  { name: 'SOLGATE_IDENTITIES_FILE', default: 'data/known-entities.csv', description: 'Known-entity registry loaded into an empty database at start (CSV or JSON); `solgate identities import` adds more' },
  { name: 'SOLGATE_EXPLORER_TX_URL', default: 'https://orbmarkets.io/tx/', description: 'Prefix of funded-by `explorerUrl`' },
  { name: 'SOLGATE_TRUST_PROXY', default: 'false', description: 'Trust X-Forwarded-For for client IPs (IP allow-lists behind a proxy): false | true | hop count | CIDR list' },
  { name: 'SOLGATE_CORS_ORIGINS', default: '*', description: 'Origins browser apps may call the keyed interfaces from (CORS on JSON-RPC /, /v1, /v0, /fast, /ping and the /docs JSON documents; never on /admin/api or /dashboard): * = any origin, a comma-separated list of origins (e.g. `https://app.example.com,http://localhost:3000`; `https://*.example.com` matches its subdomains), or none' },
  { name: 'SOLGATE_LOCALNET_PORT', default: '8899', description: 'Port of the built-in localnet JSON-RPC (serve --demo, localnet); 0 = any free port' },
  { name: 'SOLGATE_LOCALNET_SLOT_MS', default: '400', description: 'Slot time of the built-in localnet' },
  { name: 'SOLGATE_LOCALNET_FINALIZED_DEPTH', default: '4', description: 'Slots after which a confirmed block of the built-in localnet (confirmed one slot after it is produced) is finalized; 32 is what a real cluster takes' },
  { name: 'SOLGATE_LOCALNET_LIGHT', default: 'true', description: 'Load the Light Protocol (ZK Compression) programs and genesis trees into the built-in localnet, and add compressed activity to its demo workload (costs ~0.2 s of start-up and ~65 MB of memory): true | false' },
  { name: 'SOLGATE_OFFCHAIN_FETCH', default: 'true', description: 'Fetch the off-chain metadata JSON that on-chain metadata uris point to (DAS content.files/links, token-metadata includeOffChain): true | false' },
  { name: 'SOLGATE_OFFCHAIN_CONCURRENCY', default: '8', description: 'Off-chain metadata fetches in flight per process' },
  { name: 'SOLGATE_OFFCHAIN_TIMEOUT_MS', default: '10000', description: 'Deadline of one off-chain metadata fetch, redirects and body included' },
  { name: 'SOLGATE_OFFCHAIN_MAX_BYTES', default: '1048576', description: 'Largest off-chain metadata document accepted (bytes, after decompression)' },
  { name: 'SOLGATE_OFFCHAIN_MAX_REDIRECTS', default: '5', description: 'Redirects followed per off-chain metadata fetch (each hop is checked against the address policy)' },
  { name: 'SOLGATE_OFFCHAIN_MAX_ATTEMPTS', default: '5', description: 'Attempts at a retryable failure (timeout, 5xx, 429, network) before giving up until the next refresh' },
  { name: 'SOLGATE_OFFCHAIN_RETRY_BASE_MS', default: '30000', description: 'First retry delay of a failed off-chain fetch; doubles per attempt, with jitter' },
  { name: 'SOLGATE_OFFCHAIN_TTL_SECONDS', default: '86400', description: 'Refetch off-chain metadata (and retry given-up uris) after this long; 0 = never' },
  { name: 'SOLGATE_OFFCHAIN_ALLOW_PRIVATE', default: 'false', description: 'Allow off-chain fetches to private, loopback, link-local and other non-public addresses (trusted networks only): true | false' },
  { name: 'SOLGATE_IPFS_GATEWAY', default: 'https://ipfs.io/ipfs/', description: 'Gateway that ipfs://CID/path uris are fetched through (CID/path is appended)' },
  { name: 'SOLGATE_ARWEAVE_GATEWAY', default: 'https://arweave.net/', description: 'Gateway that ar://TX/path uris are fetched through (TX/path is appended)' },
  { name: 'PROVER_URL', default: undefined, description: 'ZK Compression prover (Light\'s gnark light-prover server; getValidityProof POSTs to PROVER_URL/prove); unset = getValidityProof(V2) answer that no prover is configured' },
  { name: 'SOLGATE_ZK_TREES', default: undefined, description: 'ZK Compression tree metadata file loaded at start (`{trees: [{tree, queue, treeType, height, rootHistoryCapacity}]}`, the format of `replay --light-trees`); trees not listed are discovered from the cluster RPC' },
  { name: 'SOLGATE_ZK_MAX_LAG_SLOTS', default: '20', description: 'getIndexerHealth answers "Node is behind N slots" when the indexed slot is more than this many slots behind the cluster tip' },
  { name: 'SOLGATE_READY_MAX_LAG_SLOTS', default: '150', description: '/ready answers 503 when this process ingests and the indexed slot is more than this many slots behind the cluster tip' },
  { name: 'SOLGATE_WEBHOOKS_ALLOW_HTTP', default: 'false', description: 'Accept http:// webhook URLs in /v0/webhooks (local testing; https is required otherwise): true | false' },
  { name: 'SOLGATE_WEBHOOKS_ALLOW_PRIVATE', default: 'false', description: 'Accept webhook URLs on localhost and on private, loopback, link-local and other non-public addresses (local testing, trusted networks): true | false' },
  { name: 'SOLGATE_WEBHOOK_CONCURRENCY', default: '8', description: 'Webhooks this process delivers to at once (serve and `solgate worker`); 0 = serve delivers nothing (run `solgate worker` processes instead)' },
  { name: 'SOLGATE_KEY_CACHE_MS', default: '1000', description: 'How long an API process remembers a key that passed (one key lookup per key and interval, not per request); a key changed through the admin API or CLI is judged again at once in every process on the same PostgreSQL (NOTIFY), at the latest after this long; 0 = read the key on every request' },
  { name: 'SOLGATE_WEBHOOK_PIPELINING', default: '8', description: 'POSTs of one webhook in flight at once on its kept-alive connection (HTTP/1.1 pipelining, answered in order); 1 = one at a time, for receivers that mishandle pipelining' },
  { name: 'SOLGATE_WEBHOOK_TIMEOUT_MS', default: '10000', description: 'Deadline of one webhook delivery POST; slower answers count as failed attempts' },
  { name: 'SOLGATE_WEBHOOK_RETRY_BASE_MS', default: '60000', description: 'Delay before the first retry of a failed delivery; doubles per attempt (with jitter) up to SOLGATE_WEBHOOK_RETRY_MAX_MS' },
  { name: 'SOLGATE_WEBHOOK_RETRY_MAX_MS', default: '3600000', description: 'Longest delay between two delivery attempts' },
  { name: 'SOLGATE_WEBHOOK_RETRY_WINDOW_SECONDS', default: '86400', description: 'How long a delivery is retried after it was queued before it is marked failed' },
  { name: 'SOLGATE_WEBHOOK_POLL_MS', default: '250', description: 'How often idle delivery workers look for due events (ingestion also wakes them at once, in-process and through PostgreSQL NOTIFY)' },
  { name: 'SOLGATE_WEBHOOK_DEACTIVATE_FAILURE_RATE', default: '0.95', description: 'Share of failed attempts (0..1) over the window at which a webhook is switched off, with the reason recorded; 0 = never' },
  { name: 'SOLGATE_WEBHOOK_DEACTIVATE_WINDOW_SECONDS', default: '3600', description: 'Window of the failure rate behind auto-deactivation' },
  { name: 'SOLGATE_WEBHOOK_DEACTIVATE_MIN_ATTEMPTS', default: '100', description: 'Attempts the window must hold before the failure rate can deactivate a webhook' },
  { name: 'SOLGATE_WEBHOOK_RETENTION_DAYS', default: '7', description: 'How long delivered/failed events, attempts and payloads are kept (delivery log, replays); pending events are never removed' },
  { name: 'SOLGATE_SENDER_RPC_URLS', default: undefined, description: 'Sender validator-path RPC URLs (comma-separated) that /fast forwards to; unset = SOLANA_RPC_URL (or the demo localnet); no URL = no Sender' },
  { name: 'SOLGATE_SENDER_BLOCK_ENGINE_URL', default: undefined, description: 'Sender block-builder sendTransaction URL (e.g. a Jito block engine\'s /api/v1/transactions), used unless swqos_only=true; unset = validator paths only' },
  { name: 'SOLGATE_SENDER_STATUS_RPC_URL', default: undefined, description: 'RPC for getSignatureStatuses (passthrough and rebroadcast) and isBlockhashValid; unset = the first Sender RPC URL' },
  { name: 'SOLGATE_SENDER_TIP_ACCOUNTS', default: undefined, description: 'Tip accounts a Sender transaction must pay (comma-separated); unset = the 10 mainnet Sender tip accounts' },
  { name: 'SOLGATE_SENDER_MIN_TIP_LAMPORTS', default: '200000', description: 'Minimum Sender tip with dual routing (validators + block builder), lamports' },
  { name: 'SOLGATE_SENDER_MIN_TIP_SWQOS_LAMPORTS', default: '5000', description: 'Minimum Sender tip with swqos_only=true, lamports' },
  { name: 'SOLGATE_SENDER_REBROADCAST_MS', default: '2000', description: 'Interval at which accepted Sender transactions are sent again until confirmed or their blockhash expires' },
  { name: 'SOLGATE_SENDER_MAX_REBROADCAST_SECONDS', default: '90', description: 'Longest a Sender transaction is rebroadcast' },
  { name: 'SOLGATE_SENDER_UPSTREAM_TIMEOUT_MS', default: '5000', description: 'Deadline of one Sender request to an upstream' },
  { name: 'SOLGATE_SENDER_RATE_LIMIT', default: '50', description: 'Sender transactions per second per API key, or per client IP without a key' },
  { name: 'SOLGATE_SENDER_PORT', default: '8081', description: 'HTTP port of `solgate sender` (a Sender-only process; serve mounts /fast and /ping on PORT)' },
  { name: 'REDIS_URL', default: undefined, description: 'Redis for rate-limit and monthly-credit counters shared by every API process; unset = counters in each process\'s memory' },
  { name: 'SOLGATE_PLANS_FILE', default: undefined, description: 'JSON file of plans and credit costs merged over the defaults (`{plans: {name: {perSecond, burstFactor, burstWindowSeconds, monthlyCredits, features, maxWebhooks}}, credits: {...}, fallbackPlan}`)' },
  { name: 'SOLGATE_USAGE_FLUSH_MS', default: '5000', description: 'How often each process writes the usage (credits per key, day and method) it counted to PostgreSQL' },
  { name: 'SOLGATE_ADMIN_TOKEN', default: undefined, description: 'Bearer token of the admin API (`/admin/api`) and the web dashboard (`/dashboard`) sign-in, at least 16 characters (e.g. `openssl rand -hex 32`); unset = both disabled (404 naming this variable), except that `serve --demo` makes a token for its run and prints it' },
  { name: 'LOG_LEVEL', default: 'info', description: 'pino log level (fatal … trace, silent)' },
];

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
