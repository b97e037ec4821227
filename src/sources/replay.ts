/**
 * Replays recorded chain data from files: the offline source behind `--replay`, the test suites and the demo.
 *
 * Each file's kind is detected from its content, not its name (the Photon fixtures have no extension):
 * - a JSON-RPC `getTransaction` result (`transaction` + `slot`),
 * - a `getBlock` result (`transactions` array + `blockhash`); its slot is the `slot` field when present, else the
 *   file name (`<slot>` or `<slot>.json`), because recorded block files carry the slot only in their name,
 * - a Geyser-style transaction record (`outerInstructions`),
 * - an account snapshot (`pubkey` + `lamports` + `owner`),
 * - a JSON array of any of these, JSON lines, or a JSON-RPC envelope (`{jsonrpc, result}`) around one.
 *
 * Order is exactly the given one (files in argument order, directories expanded recursively in sorted name
 * order, records in file order), NOT slot order: recorded fixtures come in arbitrary order and a scenario may
 * depend on applying an account snapshot between two transactions. Consecutive single transactions of the same
 * slot are grouped into one `Block` (without blockhash/parent). The ingester must therefore accept blocks whose
 * slot is lower than or equal to one already applied when it consumes a replay source.
 */
import { isAscii } from 'node:buffer';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { AccountUpdate, Block, NormalizedTx } from '../core/model.js';
import { isObject } from './fields.js';
import { parseJsonDocuments } from './json.js';
import {
  normalizeAccountSnapshot,
  normalizeGeyserTransaction,
  normalizeRpcBlock,
  normalizeRpcTransaction,
} from './normalize-rpc.js';
import type { AccountSource, BlockSource } from './source.js';
import { createDecodePool, unpackRecord, type DecodePool } from './replay-decode-pool.js';
import type { PostedRecord, ReplayRecord } from './replay-record.js';
import { listReplayFiles } from './replay-files.js';

export { listReplayFiles };

/** One step of a replay, in the order it must be applied. */
export type ReplayItem =
  | { kind: 'block'; block: Block; file: string }
  | { kind: 'accounts'; accounts: AccountUpdate[]; file: string };

export interface ReplaySource extends BlockSource, AccountSource {
  /** The files that will be read, in order (directories expanded). */
  files(): Promise<string[]>;
  /**
   * Blocks and account batches interleaved in input order: the stream the ingester should consume for a replay,
   * so accounts and transactions are applied exactly as recorded on the command line. Ends after the last file
   * or as soon as `signal` aborts.
   */
  items(signal?: AbortSignal): AsyncIterable<ReplayItem>;
}

export interface ReplayOptions {
  /** Source name for logs/metrics; default `replay:<n> path(s)`. */
  name?: string;
  /** Largest account batch emitted (consecutive snapshots are batched up to this size). Default 1000. */
  maxAccountBatch?: number;
  /**
   * Index every recorded transaction at this slot (block time 0) instead of the slot in its file — the
   * reference indexers' test convention (Photon's fixtures are indexed at slot 0). Account records are unchanged.
   */
  atSlot?: number;
  /**
   * The stored blockhash of a slot, if its block is stored (a snapshot taken before the replay). A file named by a
   * slot that holds one `getBlock` result whose blockhash is that one is then not decoded at all (`onSkipped` is
   * called instead): a replay of what is there costs reading the files only. Not with `atSlot`.
   */
  storedBlockhash?: (slot: number) => string | null | undefined;
  onSkipped?: (file: string) => void;
  /**
   * Worker threads that read and decode the files (JSON parse and normalisation) ahead of the consumer, in order
   * (src/sources/replay-decode-pool.ts). 0 (the default): files are decoded on the calling thread, one at a time
   * as iteration reaches them. Workers start only when there are at least two files.
   */
  decodeWorkers?: number;
  /**
   * Decoding workers the caller started (and closes), possibly already decoding the first files
   * (startReplayDecoding); used instead of `decodeWorkers`.
   */
  decodePool?: DecodePool;
}

/** One record of a file, decoded (what readRecords returns). */
export type { ReplayRecord };
type RecordItem = ReplayRecord;

/**
 * Creates a replay source over files and directories. Nothing is read until iteration starts; files are read
 * one at a time. Any unreadable or unrecognised file fails the iteration with an Error naming the file.
 *
 * `blocks(fromSlot)` yields only blocks with `slot >= fromSlot` (pass 0 to replay everything, since recorded
 * files are not in slot order); `accounts()` yields only the account batches; `items()` yields both interleaved.
 */
export function createReplaySource(paths: string[], opts: ReplayOptions = {}): ReplaySource {
  const maxBatch = opts.maxAccountBatch ?? 1000;
  const name = opts.name ?? `replay:${paths.length} path${paths.length === 1 ? '' : 's'}`;

  async function* items(signal?: AbortSignal): AsyncGenerator<ReplayItem> {
    let group: NormalizedTx[] = [];
    let groupFile = '';
    let batch: AccountUpdate[] = [];
    let batchFile = '';
    const takeGroup = (): ReplayItem[] => {
      if (group.length === 0) return [];
      const block = blockOf(group);
      group = [];
      return [{ kind: 'block', block, file: groupFile }];
    };
    const takeBatch = (): ReplayItem[] => {
      if (batch.length === 0) return [];
      const accounts = batch;
      batch = [];
      return [{ kind: 'accounts', accounts, file: batchFile }];
    };
    const files = await listReplayFiles(paths);
    const workers = opts.decodePool ? opts.decodePool.size : Math.min(opts.decodeWorkers ?? 0, files.length > 1 ? files.length : 0);
    const own = !opts.decodePool && workers > 0 ? createDecodePool(workers) : null;
    const pool = opts.decodePool ?? own;
    // With workers, files are decoded ahead of the consumer (a few per worker, handed over in order, blocks packed
    // until their turn); without, each file is read when iteration reaches it.
    const ahead = pool ? AHEAD_PER_WORKER * workers + 1 : 1;
    const window: Promise<PostedRecord[] | null>[] = [];
    let nextFile = 0;
    const decode = (file: string) => (pool ? pool.decode(file) : readRecords(file));
    const stored = opts.atSlot === undefined ? opts.storedBlockhash : undefined;
    const fill = () => {
      while (window.length < ahead && nextFile < files.length) {
        const file = files[nextFile];
        const p = stored
          ? holdsStoredBlock(file, stored).then((skip) => {
              if (!skip) return decode(file);
              // Decoded early while the process started (`startReplayDecoding`): not needed after all.
              pool?.forget(file);
              return null;
            })
          : decode(file);
        // Observed: a failure is thrown when its file's turn comes (or never, if iteration stops before).
        p.catch(() => {});
        window.push(p);
        nextFile++;
      }
    };
    try {
      for (const file of files) {
        if (signal?.aborted) return;
        fill();
        const records = await (window.shift() as Promise<PostedRecord[] | null>);
        fill();
        if (records === null) {
          // A stored block: what comes before it is handed over as if the block had been read.
          yield* takeBatch();
          yield* takeGroup();
          opts.onSkipped?.(file);
          continue;
        }
        for (const posted of records) {
          const rec = unpacked(posted, file);
          if (rec.kind === 'tx') {
            if (opts.atSlot !== undefined) rec.tx = { ...rec.tx, slot: opts.atSlot, blockTime: 0 };
            yield* takeBatch();
            if (group.length > 0 && group[0].slot !== rec.tx.slot) yield* takeGroup();
            if (group.length === 0) groupFile = file;
            group.push(rec.tx);
          } else if (rec.kind === 'block') {
            yield* takeBatch();
            yield* takeGroup();
            yield { kind: 'block', block: rec.block, file };
          } else {
            yield* takeGroup();
            if (batch.length === 0) batchFile = file;
            batch.push(rec.account);
            if (batch.length >= maxBatch) yield* takeBatch();
          }
          if (signal?.aborted) return;
        }
      }
    } finally {
      await own?.close();
    }
    yield* takeGroup();
    yield* takeBatch();
  }

  return {
    name,
    files: () => listReplayFiles(paths),
    items,
    async *blocks(fromSlot: number, signal?: AbortSignal) {
      for await (const item of items(signal)) {
        if (item.kind === 'block' && item.block.slot >= fromSlot) yield item.block;
      }
    },
    async *accounts(signal?: AbortSignal) {
      for await (const item of items(signal)) {
        if (item.kind === 'accounts') yield item.accounts;
      }
    },
  };
}

/** A block made of consecutive recorded transactions of one slot; hashes and parent are unknown. */
function blockOf(txs: NormalizedTx[]): Block {
  return {
    slot: txs[0].slot,
    parentSlot: null,
    blockhash: null,
    previousBlockhash: null,
    blockTime: txs.find((t) => t.blockTime !== null)?.blockTime ?? null,
    blockHeight: null,
    transactions: txs,
  };
}

const BLOCKHASH_KEY = '"blockhash":"';

/**
 * Whether `file` holds exactly the stored block of the slot it is named after: one `getBlock` result (one
 * `"blockhash"` key, no `"slot"` key, so its slot is the file name's) with the stored blockhash. Read as text, not
 * decoded; anything else is decoded as usual.
 */
async function holdsStoredBlock(file: string, stored: (slot: number) => string | null | undefined): Promise<boolean> {
  const slot = slotOfFileName(file);
  const hash = slot === null ? undefined : stored(slot);
  if (!hash) return false;
  let text: string;
  try {
    // Read as Latin-1: each byte one character, so the ASCII keys and hash below are found exactly as in the UTF-8
    // text (no byte of a multi-byte character is ASCII), without decoding it.
    text = (await readFile(file)).toString('latin1');
  } catch {
    return false;
  }
  const at = text.indexOf(BLOCKHASH_KEY);
  return (
    at >= 0 &&
    text.indexOf(BLOCKHASH_KEY, at + 1) < 0 &&
    !text.includes('"slot":') &&
    text.startsWith(`${hash}"`, at + BLOCKHASH_KEY.length)
  );
}

/**
 * Files decoded ahead per decoding worker. More is slower on two cores, even with the waiting blocks packed (a
 * window of 9 files instead of 3: 12.4-13.1 s against 10.9-11.9 s for 50 mainnet blocks, alternating): a worker
 * running further ahead takes the CPU the ingester and the database need at that moment.
 */
const AHEAD_PER_WORKER = 2;

/** A record of `file` as the consumer takes it: a packed block unpacked (an error names the file). */
function unpacked(posted: PostedRecord, file: string): RecordItem {
  try {
    return unpackRecord(posted);
  } catch (e) {
    throw new Error(`replay: ${file}: ${(e as Error).message}`, { cause: e });
  }
}

/**
 * The documents of the file read last, kept until the next file's are parsed. V8 builds the hidden classes of parsed
 * JSON objects anew once no object of them is left at a full collection, and code specialised to the old ones is
 * then deoptimised and compiled again: without this, the token balance reader alone was compiled 12 to 23 times per
 * 100 mainnet blocks (docs/benchmarks.md#replay-fourteenth). It costs one file's parsed documents of memory.
 */
let lastDocs: unknown[] | null = null;

/** Reads and classifies every record of one file. */
export async function readRecords(file: string): Promise<RecordItem[]> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (e) {
    throw new Error(`replay: cannot read ${file}: ${(e as Error).message}`, { cause: e });
  }
  // Recorded blocks are usually plain ASCII: then the bytes are the characters, and a copy replaces the UTF-8
  // decode (an eighth of a decoding worker's time on mainnet blocks). Any other byte takes the UTF-8 decode.
  const text = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  const docs = parseJsonDocuments(text, `replay: ${file}`);
  lastDocs = docs;
  const records = docs.length === 1 && Array.isArray(docs[0]) ? docs[0] : docs;
  return records.map((r, i) => {
    const where = records.length === 1 ? file : `${file} (record ${i})`;
    try {
      return classify(r, file, records.length === 1);
    } catch (e) {
      throw new Error(`replay: ${where}: ${(e as Error).message}`, { cause: e });
    }
  });
}

/** Detects the kind of one recorded document and normalises it. */
function classify(doc: unknown, file: string, onlyRecord: boolean): RecordItem {
  let d = doc;
  if (isObject(d) && 'jsonrpc' in d && 'result' in d) d = d.result;
  if (!isObject(d)) {
    throw new Error(`not a recognised record: expected a JSON object, got ${d === null ? 'null' : typeof d}`);
  }
  if (Array.isArray(d.transactions) && 'blockhash' in d) {
    return { kind: 'block', block: normalizeRpcBlock(d, blockSlot(d.slot, file, onlyRecord), { skipVotes: true }) };
  }
  if ('transaction' in d && 'slot' in d) return { kind: 'tx', tx: normalizeRpcTransaction(d) };
  if ('outerInstructions' in d) return { kind: 'tx', tx: normalizeGeyserTransaction(d) };
  if ('pubkey' in d && 'lamports' in d && 'owner' in d) {
    return { kind: 'account', account: normalizeAccountSnapshot(d) };
  }
  const keys = Object.keys(d).slice(0, 8).join(', ');
  throw new Error(
    `not a recognised record (getTransaction/getBlock result, Geyser transaction or account snapshot); keys: ${keys}`,
  );
}

/** The slot a file is named after (`123456` or `123456.json`), or null. */
export function slotOfFileName(file: string): number | null {
  const m = /^(\d{1,15})(\.[^.]*)?$/.exec(basename(file));
  return m ? Number(m[1]) : null;
}

/** A getBlock result's slot: its own `slot` field if a recorder added one, else the file name. */
function blockSlot(field: unknown, file: string, onlyRecord: boolean): number {
  if (typeof field === 'number' && Number.isSafeInteger(field) && field >= 0) return field;
  const slot = slotOfFileName(file);
  if (!onlyRecord) throw new Error('getBlock result has no slot field (required when a file holds several records)');
  if (slot === null) {
    throw new Error('getBlock result has no slot: name the file after its slot (e.g. 123456 or 123456.json)');
  }
  return slot;
}
