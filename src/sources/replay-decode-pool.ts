/**
 * Decoding of recorded files off the main thread: worker threads that read a file, parse its JSON and normalise
 * its records (src/sources/replay.ts readRecords), handing the records back by structured clone, blocks packed
 * (src/sources/block-pack.ts) and unpacked only when the consumer takes them ({@link unpackRecord}): files decoded
 * ahead wait as a few flat arrays, not as the hundred thousand objects of a block. Used by `solgate replay`, so
 * that the ingester's parse/fold and SQL writes on the main thread overlap with the decoding of the files after
 * them.
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../core/worker-thread.js';
import { unpackBlock } from './block-pack.js';
import type { PostedRecord, ReplayRecord } from './replay-record.js';

export interface DecodePool {
  /**
   * The records of `file`, decoded by a worker, blocks still packed (rejects with an Error naming the file, as
   * readRecords does).
   */
  decode(file: string): Promise<PostedRecord[]>;
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
  return {
    decode(path) {
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
    },
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}

