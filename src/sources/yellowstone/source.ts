/**
 * The streaming source: blocks from a Yellowstone gRPC (Geyser "Dragon's Mouth") endpoint, with the cluster's
 * JSON-RPC as the fallback for anything the stream does not deliver. Yields exactly what the RPC poller yields
 * for the same slots (the same normalised blocks, votes left out, the same asset-program account reads after each
 * block), in strict slot order, so the ingester writes the same rows whichever source it follows.
 *
 * - Resume: every (re)subscription asks for `from_slot` = the slot after the last one yielded, so a disconnect
 *   replays what the server still holds. A server that cannot replay that far (its window is short) fails the
 *   subscription; the next one subscribes from the live head and the JSON-RPC fills the rest.
 * - Gaps: each block names its parent. A parent above the last slot yielded means blocks were not delivered (a
 *   reconnect, a server that dropped one); they are read over JSON-RPC (the RPC poller from the last slot yielded
 *   up to the streamed block) and yielded first.
 * - Slow consumers: the stream is read only as fast as the ingester takes blocks (backpressure reaches the server
 *   through HTTP/2 flow control). A server that disconnects a lagging client is reconnected with `from_slot`.
 * - Reconnects back off exponentially (250 ms doubling to 10 s) and never give up; a malformed block fails the run.
 */
import type { Logger } from 'pino';
import YellowstoneClient, { CommitmentLevel, type SubscribeRequest, type SubscribeUpdate } from '@triton-one/yellowstone-grpc';
import type { Block } from '../../core/model.js';
import { ingestGapsDetected } from '../../core/metrics.js';
import { sleepUnlessAborted } from '../../core/sleep.js';
import { attachBlockAccounts } from '../account-fetch.js';
import { FieldError } from '../fields.js';
import { createRpcClient, type PollerCommitment } from '../rpc-client.js';
import { createRpcPoller } from '../rpc-poller.js';
import type { BlockSource } from '../source.js';
import { normalizeGeyserBlock } from './normalize.js';

export interface YellowstoneSourceOptions {
  /** The gRPC endpoint (`https://…` or `http://…`). */
  url: string;
  /** The `x-token` the endpoint expects, if any. */
  token?: string;
  /** The cluster's JSON-RPC: fills gaps and reads the asset-program accounts after each block. */
  rpcUrl: string;
  commitment?: PollerCommitment;
  /** As the poller's option: read the accounts each block's transactions wrote for the asset programs (default true). */
  fetchAccounts?: boolean;
  /** First reconnect delay (default 250 ms), doubled per failure up to `reconnectMaxMs` (default 10 s). */
  reconnectBaseMs?: number;
  reconnectMaxMs?: number;
  /** Client ping interval on an open stream, for load balancers that close idle streams (default 10 s). */
  pingIntervalMs?: number;
  /** Options of the JSON-RPC poller that fills gaps (tests shorten its polling). */
  rpcPollIntervalMs?: number;
  rpcConcurrency?: number;
  logger?: Pick<Logger, 'warn' | 'info' | 'debug'>;
}

export interface YellowstoneStats {
  /** Blocks received from the stream and yielded. */
  blocksStreamed: number;
  /** Blocks read over JSON-RPC because the stream did not deliver them. */
  blocksFilled: number;
  /** Times a gap was found (a parent above the last slot yielded). */
  gaps: number;
  /** Subscriptions that ended (disconnects, refused `from_slot`, server errors), each followed by a reconnect. */
  reconnects: number;
  /** Blocks the server delivered again after a resume (dropped as already yielded). */
  duplicates: number;
  accountsFetched: number;
  lastSlot: number | null;
}

export interface YellowstoneSource extends BlockSource {
  readonly stats: Readonly<YellowstoneStats>;
  close(): Promise<void>;
}

const FILTER = 'solgate';
/** How servers word a `from_slot` they cannot replay (Yellowstone: "broadcast from N is not available"). */
const REFUSED_FROM_SLOT = /not available|from_slot|out.of.range/i;

// The package's typings are read as CommonJS (its default export under `.default`); Node loads its ES build, whose
// default export is the client class itself.
const Client = ((YellowstoneClient as unknown as { default?: unknown }).default ?? YellowstoneClient) as typeof YellowstoneClient.default;
type Client = InstanceType<typeof Client>;

function subscribeRequest(commitment: PollerCommitment, fromSlot?: number, ping?: number): SubscribeRequest {
  return {
    accounts: {},
    slots: {},
    transactions: {},
    transactionsStatus: {},
    blocks: { [FILTER]: { accountInclude: [], includeTransactions: true, includeAccounts: false, includeEntries: false } },
    blocksMeta: {},
    entry: {},
    accountsDataSlice: [],
    commitment: commitment === 'finalized' ? CommitmentLevel.FINALIZED : CommitmentLevel.CONFIRMED,
    ...(fromSlot === undefined ? {} : { fromSlot: String(fromSlot) }),
    ...(ping === undefined ? {} : { ping: { id: ping } }),
  };
}

export function createYellowstoneSource(opts: YellowstoneSourceOptions): YellowstoneSource {
  const commitment = opts.commitment ?? 'confirmed';
  const fetchAccountsOn = opts.fetchAccounts ?? true;
  const baseMs = opts.reconnectBaseMs ?? 250;
  const maxMs = opts.reconnectMaxMs ?? 10_000;
  const log = opts.logger;
  const stats: YellowstoneStats = { blocksStreamed: 0, blocksFilled: 0, gaps: 0, reconnects: 0, duplicates: 0, accountsFetched: 0, lastSlot: null };
  const rpc = createRpcClient({ url: opts.rpcUrl, connections: 4 });
  const filler = createRpcPoller({
    url: opts.rpcUrl,
    commitment,
    fetchAccounts: fetchAccountsOn,
    concurrency: opts.rpcConcurrency ?? 8,
    pollIntervalMs: opts.rpcPollIntervalMs ?? 400,
    // Slots the stream passed are not re-checked by the filler: it only runs between two streamed blocks.
    gapRecheckDepth: 0,
    logger: log,
  });

  /** The blocks in [from, until) read over JSON-RPC (skipped slots are simply absent). */
  async function* fill(from: number, until: number, signal: AbortSignal): AsyncGenerator<Block> {
    const ac = new AbortController();
    const onAbort = () => ac.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const b of filler.blocks(from, ac.signal)) {
        if (b.slot >= until) break;
        stats.blocksFilled++;
        yield b;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      ac.abort();
    }
  }

  async function withAccounts(block: Block, signal: AbortSignal): Promise<Block> {
    if (fetchAccountsOn) {
      const read = await attachBlockAccounts(rpc, block, { commitment, signal });
      stats.accountsFetched += read;
    }
    return block;
  }

  async function* blocks(fromSlot: number, outer?: AbortSignal): AsyncGenerator<Block> {
    if (!Number.isSafeInteger(fromSlot) || fromSlot < 0) throw new Error(`blocks: invalid fromSlot ${fromSlot}`);
    const ac = new AbortController();
    const onOuterAbort = () => ac.abort();
    if (outer?.aborted) return;
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    const signal = ac.signal;
    let last = fromSlot - 1;
    let client: Client | null = null;
    let resume = true;
    let emptyResumes = 0;
    let failures = 0;
    try {
      while (!signal.aborted) {
        let delivered = false;
        let stream: Awaited<ReturnType<Client['subscribe']>> | null = null;
        let pinger: NodeJS.Timeout | null = null;
        const onAbort = () => stream?.destroy();
        try {
          // One client (one HTTP/2 channel, which reconnects by itself) for every subscription of this run.
          if (!client) {
            const c = new Client(opts.url, opts.token, undefined);
            await c.connect();
            client = c;
          }
          const from = resume ? last + 1 : undefined;
          stream = await client.subscribe(subscribeRequest(commitment, from));
          signal.addEventListener('abort', onAbort, { once: true });
          let pings = 0;
          const s = stream;
          pinger = setInterval(() => s.write(subscribeRequest(commitment, undefined, ++pings)), opts.pingIntervalMs ?? 10_000);
          log?.info({ url: redact(opts.url), fromSlot: from ?? 'head' }, 'yellowstone: subscribed');
          for await (const update of stream as AsyncIterable<SubscribeUpdate>) {
            if (!update.block) continue;
            const block = normalizeGeyserBlock(update.block);
            delivered = true;
            failures = 0;
            emptyResumes = 0;
            resume = true;
            if (block.slot <= last) {
              stats.duplicates++;
              continue;
            }
            if (block.parentSlot !== null && block.parentSlot > last) {
              stats.gaps++;
              ingestGapsDetected.inc();
              log?.warn({ after: last, slot: block.slot, parent: block.parentSlot }, 'yellowstone: blocks not delivered by the stream; reading them over JSON-RPC');
              for await (const b of fill(last + 1, block.slot, signal)) {
                stats.lastSlot = last = b.slot;
                yield b;
              }
            }
            if (signal.aborted) return;
            yield await withAccounts(block, signal);
            stats.blocksStreamed++;
            stats.lastSlot = last = block.slot;
          }
          if (signal.aborted) return;
          throw new Error('the server ended the stream');
        } catch (e) {
          if (signal.aborted) return;
          if (e instanceof FieldError || (e as Error)?.name === 'FieldError') throw e;
          // A subscription refused for its from_slot (the server no longer holds that slot), or two in a row that
          // delivered nothing: the next one starts at the live head and the gap below it is read over JSON-RPC.
          if (resume && !delivered) {
            emptyResumes++;
            if (REFUSED_FROM_SLOT.test(String((e as Error)?.message ?? e)) || emptyResumes >= 2) resume = false;
          }
          failures++;
          stats.reconnects++;
          // Repeated failures: a new client (a new channel) for the next attempt.
          if (failures >= 3) client = null;
          const delay = Math.min(maxMs, baseMs * 2 ** Math.min(failures - 1, 16));
          log?.warn({ err: String((e as Error)?.message ?? e), lastSlot: last, retryInMs: delay }, 'yellowstone: stream failed; reconnecting');
          await sleepUnlessAborted(delay, signal);
        } finally {
          if (pinger) clearInterval(pinger);
          signal.removeEventListener('abort', onAbort);
          stream?.destroy();
        }
      }
    } finally {
      outer?.removeEventListener('abort', onOuterAbort);
      ac.abort();
    }
  }

  return {
    name: `yellowstone:${redact(opts.url)}`,
    stats,
    blocks,
    async close() {
      await Promise.all([rpc.close(), filler.close()]);
    },
  };
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return 'invalid-url';
  }
}
