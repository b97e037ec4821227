/**
 * Decoding of recorded files off the main thread: worker threads that read a file, parse its JSON and normalise
 * its records (src/sources/replay.ts readRecords), handing the records back by structured clone, blocks packed
 * (src/sources/block-pack.ts) and unpacked only when the consumer takes them ({@link unpackRecord}): files decoded
 * ahead wait as a few flat arrays, not as the hundred thousand objects of a block. Used by `solgate replay`, so
 * that the ingester's parse/fold and SQL writes on the main thread overlap with the decoding of the files after
 * them.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../core/worker-thread.js';
import { unpackBlock } from './block-pack.js';
import type { PostedRecord, ReplayRecord } from './replay-record.js';
import { listReplayFiles } from './replay-files.js';

export interface DecodePool {
  /** Its number of workers. */
  readonly size: number;
  /**
   * The records of `file`, decoded by a worker, blocks still packed (rejects with an Error naming the file, as
   * readRecords does).
   */
  decode(file: string): Promise<PostedRecord[]>;
  /**
   * Starts decoding `files` now (in order); a later `decode` of one of them takes that result. For the first files
   * of a replay while the process is still starting (the workers are idle then).
   */
  prefetch(files: readonly string[]): void;
  /** Drops the prefetched result of `file` (a file the replay skips without decoding: a block already stored). */
  forget(file: string): void;
  /** Prefetched results not yet taken by `decode` nor dropped by `forget`. */
  readonly waiting: number;
  close(): Promise<void>;
}

type Reply = { id: number; records: PostedRecord[] } | { id: number; error: string };

/** A record as a worker posted it, its block unpacked. */
export function unpackRecord(r: PostedRecord): ReplayRecord {
  return r.kind === 'packed-block' ? { kind: 'block', block: unpackBlock(r.packed) } : r;
}

/** Starts `size` decoding workers (they stop with close(), or when the process has nothing else to do). */
export function createDecodePool(size: number): DecodePool {
  const workers: Worker[] = Array.from({ length: Math.max(1, size) }, () => startModuleWorker(import.meta.url, 'replay-decode-worker'));
  const pending = new Map<number, { resolve: (r: PostedRecord[]) => void; reject: (e: Error) => void }>();
  const load = new Map<Worker, number>(workers.map((w) => [w, 0]));
  let next = 0;
  let failed: Error | null = null;
  const early = new Map<string, Promise<PostedRecord[]>>();
  for (const w of workers) {
    w.on('message', (m: Reply) => {
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      load.set(w, (load.get(w) ?? 1) - 1);
      if ('error' in m) p.reject(new Error(m.error));
      else p.resolve(m.records);
    });
    w.on('error', (e) => {
      failed = e;
      for (const p of pending.values()) p.reject(e);
      pending.clear();
    });
  }
  const send = (path: string): Promise<PostedRecord[]> => {
    if (failed) return Promise.reject(failed);
    // The least busy worker (files differ in size; round robin would queue behind a large one).
    let w = workers[0];
    for (const c of workers) if ((load.get(c) ?? 0) < (load.get(w) ?? 0)) w = c;
    load.set(w, (load.get(w) ?? 0) + 1);
    const id = next++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      w.postMessage({ id, file: path });
    });
  };
  return {
    size: workers.length,
    get waiting() {
      return early.size;
    },
    forget(path) {
      early.delete(path);
    },
    decode(path) {
      const p = early.get(path);
      if (!p) return send(path);
      early.delete(path);
      return p;
    },
    prefetch(files) {
      for (const f of files) {
        if (early.has(f)) continue;
        const p = send(f);
        // Observed: a failure reaches the consumer when it asks for that file (or never, if it does not).
        p.catch(() => {});
        early.set(f, p);
      }
    },
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}

/**
 * A pool of `size` workers already decoding the first `first` files of `paths` (as listReplayFiles orders them):
 * `solgate replay` starts it before loading the ingester, whose modules take a few hundred milliseconds to load on
 * the main thread while the workers would otherwise be idle. A path that cannot be listed is not reported here: the
 * replay lists the files again and fails with its usual error.
 */
export async function startReplayDecoding(paths: string[], size: number, first: number): Promise<DecodePool> {
  const pool = createDecodePool(size);
  const files = await listReplayFiles(paths).catch(() => []);
  pool.prefetch(files.slice(0, first));
  return pool;
}

/** Decoding workers for `solgate replay`: the cores but one (left to the ingester's thread), 1 to 4. */
export function replayDecodeWorkers(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}
