/**
 * Poseidon Merkle trees of the ZK benchmark's dataset, computed level by level (every inner node exactly once, not
 * a path per leaf) on a pool of worker threads: a tree's leaves are cut into aligned chunks of 2^13 leaves, each
 * worker turns a chunk into its subtree (levels 1..13), and the few levels above the chunks (≤ 2^7 nodes at level 13
 * for a million leaves, then one node per level up to the root) are hashed here. Nodes outside the written leaves
 * are the zero hash of their level and are not materialised: level l holds ceil(count / 2^l) nodes.
 *
 * Workers run bench/gen/zk-poseidon-worker.ts through tsx's ESM loader (registered inside each worker, since
 * Node 20 does not hand the parent's `--import tsx` loader to worker threads).
 */
import { Worker } from 'node:worker_threads';
import { initPoseidon, poseidonPair, zeroHash } from '../../src/proofs/light/index.js';
import type { SubtreeResult, SubtreeTask } from './zk-poseidon-worker.js';

/** Leaves per worker task (2^CHUNK_LEVELS). */
export const CHUNK_LEVELS = 13;

export class PoseidonPool {
  private readonly idle: Worker[] = [];
  private readonly queue: { task: SubtreeTask; transfer: ArrayBuffer[]; resolve: (r: SubtreeResult) => void; reject: (e: unknown) => void }[] = [];
  private readonly pending = new Map<number, { resolve: (r: SubtreeResult) => void; reject: (e: unknown) => void; worker: Worker }>();
  private nextId = 1;
  /** Hashes computed by the workers so far. */
  hashes = 0;

  private constructor(private readonly workers: Worker[]) {}

  static async start(size: number): Promise<PoseidonPool> {
    const loader = import.meta.resolve('tsx/esm/api');
    const file = new URL('./zk-poseidon-worker.ts', import.meta.url).href;
    const boot = `import(${JSON.stringify(loader)}).then((m) => { m.register(); return import(${JSON.stringify(file)}); })`;
    const workers = Array.from({ length: size }, () => new Worker(boot, { eval: true }));
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            w.once('message', () => resolve());
            w.once('error', reject);
          }),
      ),
    );
    const pool = new PoseidonPool(workers);
    for (const w of workers) {
      w.on('message', (r: SubtreeResult) => pool.done(w, r));
      w.on('error', (e) => {
        for (const [id, p] of pool.pending) if (p.worker === w) (pool.pending.delete(id), p.reject(e));
      });
      pool.idle.push(w);
    }
    return pool;
  }

  /** Runs one subtree task on the next free worker. */
  run(task: Omit<SubtreeTask, 'id'>, transfer: ArrayBuffer[] = []): Promise<SubtreeResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ task: { ...task, id: this.nextId++ }, transfer, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.idle.length && this.queue.length) {
      const w = this.idle.pop()!;
      const job = this.queue.shift()!;
      this.pending.set(job.task.id, { resolve: job.resolve, reject: job.reject, worker: w });
      w.postMessage(job.task, job.transfer);
    }
  }

  private done(w: Worker, r: SubtreeResult): void {
    const p = this.pending.get(r.id);
    this.pending.delete(r.id);
    this.hashes += r.hashes;
    this.idle.push(w);
    this.pump();
    p?.resolve(r);
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

/** Every materialised node of a tree: levels[l] = ceil(count / 2^l) nodes × 32 bytes, levels[height] = the root. */
export interface TreeNodes {
  height: number;
  /** Leaves written (0 .. count-1). */
  count: number;
  levels: Uint8Array[];
  /** Poseidon hashes this tree took (leaf hashes of address trees included). */
  hashes: number;
}

export type TreeInput =
  | { kind: 'state'; height: number; count: number; leaves: Uint8Array }
  | { kind: 'addressV2'; height: number; count: number; values: Uint8Array; nextValues: Uint8Array };

/** Computes every node of a tree (count ≥ 1) on the pool; the levels above the chunks on this thread. */
export async function buildTree(pool: PoseidonPool, input: TreeInput): Promise<TreeNodes> {
  await initPoseidon();
  const { height, count } = input;
  if (count < 1) throw new Error('buildTree: a tree needs at least one leaf');
  const c = Math.min(CHUNK_LEVELS, height);
  const chunk = 2 ** c;
  const levels: Uint8Array[] = [];
  for (let l = 0; l <= c; l++) levels.push(new Uint8Array(Math.ceil(count / 2 ** l) * 32));
  if (input.kind === 'state') levels[0] = input.leaves;
  let hashes = 0;
  const tasks: Promise<void>[] = [];
  for (let start = 0, k = 0; start < count; start += chunk, k++) {
    const n = Math.min(chunk, count - start);
    const slice = (b: Uint8Array) => b.slice(start * 32, (start + n) * 32);
    const task: Omit<SubtreeTask, 'id'> =
      input.kind === 'state'
        ? { kind: 'state', count: n, levels: c, leaves: slice(input.leaves) }
        : { kind: 'addressV2', count: n, levels: c, values: slice(input.values), nextValues: slice(input.nextValues) };
    const transfer = [task.leaves, task.values, task.nextValues].filter((b): b is Uint8Array => b !== undefined).map((b) => b.buffer as ArrayBuffer);
    tasks.push(
      pool.run(task, transfer).then((r) => {
        hashes += r.hashes;
        if (r.leaves) levels[0].set(r.leaves, start * 32);
        r.levels.forEach((buf, i) => levels[i + 1].set(buf, k * (chunk / 2 ** (i + 1)) * 32));
      }),
    );
  }
  await Promise.all(tasks);
  for (let l = c + 1; l <= height; l++) {
    const prev = levels[l - 1];
    const prevCount = prev.length / 32;
    const n = Math.ceil(prevCount / 2);
    const cur = new Uint8Array(n * 32);
    const zero = zeroHash(l - 1);
    for (let j = 0; j < n; j++) {
      const right = 2 * j + 1 < prevCount ? prev.subarray((2 * j + 1) * 32, (2 * j + 2) * 32) : zero;
      cur.set(poseidonPair(prev.subarray(2 * j * 32, 2 * j * 32 + 32), right), j * 32);
      hashes++;
    }
    levels.push(cur);
  }
  return { height, count, levels, hashes };
}
