/** Everything the HTTP API needs, composed by the CLI (no globals). */
import type { UpstreamRpc, UpstreamSocketFactory } from '../core/upstream.js';
import type { TransactionHub } from './ws/transactions.js';
import type { AccountHub } from './ws/accounts.js';
import type { EnsureCovered, IndexCoverage, KeyNeed } from '../core/coverage.js';
import type { Logger } from 'pino';
import type { Db } from '../store/db.js';
import type { TokenRegistry } from '../pricing/token-registry.js';
import type { AccountFetcher } from '../identity/domains.js';
import type { OffchainFetcher } from '../offchain/fetcher.js';
import type { SenderDeps } from '../sender/routes.js';
import type { Meter } from '../accounts/meter.js';

export interface ApiDeps {
  db: Db;
  /** How long a key that passed is remembered (SOLGATE_KEY_CACHE_MS; absent: 1000; 0 = checked on every request). */
  keyCacheMs?: number;
  /**
   * A streaming replica of `db` (DATABASE_READ_URL): the Wallet REST and JSON-RPC interfaces read the index from it
   * (buildApp gives them `db: readDb, primaryDb: db`); keys, usage, webhooks and the rest stay on `db`.
   */
  readDb?: Db;
  /** Where API keys are checked when `db` is a replica (keys take effect, and are revoked, at once). */
  primaryDb?: Db;
  /** How long a call with `minContextSlot` waits for the index to reach it (SOLGATE_MIN_CONTEXT_WAIT_MS; 2000). */
  minContextWaitMs?: number;
  /** The commitment the index follows (SOLGATE_COMMITMENT); absent, taken as `confirmed`. */
  indexCommitment?: 'confirmed' | 'finalized';
  logger: Logger;
  tokens: TokenRegistry;
  /** Prefix of funded-by explorer links, e.g. `https://orbmarkets.io/tx/`. */
  explorerTxUrl: string;
  /** Live account reads for name resolution when a cluster RPC is configured. */
  fetchAccounts?: AccountFetcher;
  /** Fastify `trustProxy` (client IP for allow-lists behind a proxy). */
  trustProxy?: boolean | number | string;
  /** Extra readiness facts (e.g. ingest lag) for /ready. */
  ingestStatus?: () => { lastSlot: number | null; tip: number | null };
  /** The off-chain metadata fetcher when this process runs one (on-demand fetches of /v0/token-metadata). */
  offchain?: Pick<OffchainFetcher, 'fetchNow'>;
  /** Plans, rate limits, quotas and usage of keyed calls; absent = no limits (tests of other behaviour). */
  meter?: Meter;
  /** The Sender interface (/fast, /ping) when this process serves it. */
  sender?: SenderDeps;
  /**
   * Whether the index knows an address completely, reading its state from the cluster first when it does not
   * (src/ingest/hydrate.ts, wired in cli/). Absent: answers carry no coverage header (tests of other behaviour).
   */
  ensureCovered?: EnsureCovered;
  /** The coverage of answers about no single address (JSON-RPC methods that report none of their own). */
  indexCoverage?: IndexCoverage;
  /** Puts addresses on the watch list (read ahead of their first request); webhooks' addresses go there too. */
  trackAddresses?: (addresses: string[]) => Promise<void>;
  /**
   * Webhook replays read from the cluster (src/ingest/webhook-replay.ts): with it, a replay also queues a job that
   * reads the webhook's addresses' transactions of the range from the cluster; absent (no cluster RPC), a replay
   * re-queues the stored events only.
   */
  webhookReplays?: { wake(): void };
  /**
   * The cluster RPC the standard Solana JSON-RPC methods are forwarded to (src/sources/upstream-rpc.ts); absent, they
   * answer -32601 Method not found.
   */
  upstreamRpc?: UpstreamRpc;
  /** The WebSocket endpoint (src/api/ws/pubsub.ts): the cluster's PubSub bridged; absent, no WebSocket endpoint. */
  pubsub?: PubsubOptions;
  /** Puts keys that list assets (collections, creators, authorities) on the watch list. */
  trackKeys?: (need: KeyNeed, keys: string[]) => Promise<void>;
}

/** The WebSocket endpoint's bridge and limits (src/api/ws/pubsub.ts). */
export interface PubsubOptions {
  upstream: UpstreamSocketFactory;
  /** Open connections per API key (default 100). */
  maxConnectionsPerKey?: number;
  /** Subscriptions per connection (default 1000). */
  maxSubscriptions?: number;
  /** Unsent bytes a client may leave queued before it is cut off (default 8 MiB). */
  maxBufferedBytes?: number;
  /** Ping interval; a client that has not answered the previous ping is terminated (default 30 s). */
  pingMs?: number;
  /** The enhanced transactionSubscribe's stream (the committed blocks); absent, it is not offered. */
  transactions?: TransactionHub;
  /** accountSubscribe at the index's commitment, served from the committed blocks; absent, every one is bridged. */
  accounts?: AccountHub;
}
