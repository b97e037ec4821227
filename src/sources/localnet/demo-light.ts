/**
 * ZK Compression activity of the demo workload, on a chain that has the Light genesis (`light: true`): only
 * what runs without a prover. Setup: a compressed-token mint (an SPL mint with its compressed token pool),
 * SOL compressed by every wallet into a V1 tree (appends need no proof) and into a V2 output queue, compressed
 * tokens minted to every wallet (V2 queues, plus one V1 mint). Then, one operation per `tick()`: V2 by-index
 * transfers of compressed SOL and compressed tokens between the wallets, and further compressions into V1
 * trees and V2 queues. V1 spends and new addresses need a validity proof, so they are never attempted.
 *
 * The V2 limit: without a forester (none runs locally) nothing ever leaves an output queue, and each holds
 * `num_batches × batch_size` outputs (2 × 50 = 100 in the genesis accounts; read from the queue account, not
 * assumed). The genesis has five V2 trees; the wallets are spread over them and every V2 transaction is checked
 * against a budget per queue (`v2OutputsPerQueue`, default the queue's free room) before it is sent. A queue
 * whose budget is used, or that refuses a transaction at preflight, is closed with one log line; once every
 * queue is closed V2 activity stops (one more line) and only V1 compressions continue — never a stream of
 * failing transactions. A compressed account is spent by index with its exact leaf index and value, which the
 * demo tracks: the leaf index of a V2 output is its queue's next index when it was written (outputs in
 * instruction order), confirmed by reading the queue before and after each transaction. `state()` saves the mint,
 * the spendable accounts and the queues' budgets; `resume` continues from them on the same chain state.
 */
import { generateKeyPairSigner, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import type { DemoClient } from './demo-client.js';
import { LIGHT_PROGRAMS, LIGHT_STATE_TREES_V1, LIGHT_STATE_TREES_V2, v2OutputQueueCounters, type LightStateTree } from './light.js';
import {
  getCompressSolInstruction, getCompressedMintToInstruction, getCreateCompressedMintInstructions,
  getTransferCompressedSolByIndexInstruction, getTransferCompressedTokensByIndexInstruction,
} from './light-instructions.js';

/** Decimals of the demo's compressed-token mint. */
export const COMPRESSED_DEMO_DECIMALS = 6;

export type DemoLog = (message: string, context?: Record<string, unknown>, level?: 'debug' | 'info' | 'warn') => void;

export interface LightDemoOptions {
  /** Outputs the demo writes into each V2 output queue at most. Default: the queue's free room (100 on a fresh chain). */
  v2OutputsPerQueue?: number;
}

/** Counters of landed compressed transactions (outputs are counted per output). */
export interface LightDemoStats {
  v1Outputs: number;
  v2Outputs: number;
  compressions: number;
  tokenMints: number;
  solTransfers: number;
  tokenTransfers: number;
  /** V2 transactions refused at preflight (each closes its queue). */
  refused: number;
}

export interface LightDemoInfo {
  /** The compressed-token mint (an SPL Token mint registered with the compressed token program). */
  readonly mint: Address;
  readonly decimals: number;
  readonly stats: LightDemoStats;
  /** V2 output queues still taking the demo's outputs. */
  openV2Queues(): string[];
  /** True once no V2 queue takes outputs any more (only V1 compressions continue). */
  v2Stopped(): boolean;
}

export interface LightDemo {
  readonly info: LightDemoInfo;
  /** One compressed operation (V2 SOL or token transfer, V1 or V2 compression, in rotation). */
  tick(): Promise<void>;
  /** What `startLightDemo(…, resume)` needs to continue on the same chain state (call it between ticks). */
  state(): LightDemoState;
}

/** The compressed activity saved with a chain snapshot (JSON): its mint, the spendable V2 accounts, the queues' budgets. */
export interface LightDemoState {
  mint: Address;
  /** Compressed SOL and tokens still spendable by index: wallet index, output queue, leaf index, value (decimal). */
  sol: { owner: number; queue: string; leafIndex: number; value: string }[];
  tokens: { owner: number; queue: string; leafIndex: number; value: string }[];
  /** Budget left per V2 output queue (bounded again by the queue's free room when resumed). */
  queues: { queue: string; room: number; open: boolean }[];
}

type Send = (payer: KeyPairSigner, instructions: Instruction[]) => Promise<string>;

interface Queue {
  tree: LightStateTree;
  /** Outputs the demo may still write here (budget left, bounded by the queue's free room). */
  room: number;
  open: boolean;
}

/** A compressed account (SOL or token) of a demo wallet, still in a V2 output queue: spendable by index. */
interface Held {
  owner: number;
  queue: Queue;
  leafIndex: number;
  /** Lamports (SOL) or raw token amount. */
  value: bigint;
}

/** Whether the chain behind `client` has the Light programs and the genesis state trees. */
export async function hasLightPrograms(client: DemoClient): Promise<boolean> {
  for (const p of LIGHT_PROGRAMS) if ((await client.account(p.programId))?.executable !== true) return false;
  for (const t of [...LIGHT_STATE_TREES_V1, ...LIGHT_STATE_TREES_V2]) {
    if (!(await client.account(t.tree)) || !(await client.account(t.queue))) return false;
  }
  return true;
}

const OPS = ['sol-transfer', 'compress-v1', 'token-transfer', 'compress-v1', 'compress-v2', 'compress-v1'] as const;

/** Sets up the compressed mint and the wallets' first compressed accounts (awaited); `tick()` does the rest. */
export async function startLightDemo(
  ctx: { client: DemoClient; send: Send; wallets: KeyPairSigner[]; log: DemoLog },
  opts: LightDemoOptions = {},
  resume?: LightDemoState,
): Promise<LightDemo> {
  const { client, send, wallets, log } = ctx;
  const n = wallets.length;
  const rand = (k: number) => Math.floor(Math.random() * k);
  const stats: LightDemoStats = { v1Outputs: 0, v2Outputs: 0, compressions: 0, tokenMints: 0, solTransfers: 0, tokenTransfers: 0, refused: 0 };
  const sol: Held[] = [];
  const tokens: Held[] = [];

  const counters = async (q: Queue) => {
    const acc = await client.account(q.tree.queue);
    if (!acc) throw new Error(`V2 output queue ${q.tree.queue} not found`);
    const c = v2OutputQueueCounters(acc.data);
    return { next: Number(c.nextIndex), free: Number(c.capacity - c.nextIndex) };
  };
  const queues: Queue[] = [];
  for (const tree of LIGHT_STATE_TREES_V2) {
    const q: Queue = { tree, room: 0, open: true };
    const saved = resume?.queues.find((x) => x.queue === tree.queue);
    const budget = saved ? (saved.open ? saved.room : 0) : (opts.v2OutputsPerQueue ?? Number.MAX_SAFE_INTEGER);
    q.room = Math.max(0, Math.min(budget, (await counters(q)).free));
    queues.push(q);
  }
  let stopped = false;
  const close = (q: Queue, why: string, level: 'debug' | 'warn' = 'debug') => {
    if (!q.open) return;
    q.open = false;
    q.room = 0;
    log(`ZK Compression: no more V2 outputs into output queue ${q.tree.queue} (${why})`, { tree: q.tree.tree }, level);
    if (!stopped && queues.every((x) => !x.open)) {
      stopped = true;
      log(`ZK Compression: V2 activity stopped — all ${queues.length} V2 output queues used (no forester runs locally to empty them); V1 compressions continue`,
        { v2Outputs: stats.v2Outputs }, 'info');
    }
  };
  for (const q of queues) if (q.room === 0) close(q, 'no room left');
  const roomy = (k: number) => queues.filter((q) => q.open && q.room >= k);

  /**
   * Sends a transaction writing `outputs` outputs into `q` if its budget allows. Returns whether it landed and
   * the leaf index of its first output (null when another writer interleaved and the indices are unknown).
   */
  const sendV2 = async (q: Queue, outputs: number, payer: KeyPairSigner, ixs: Instruction[]): Promise<{ landed: boolean; first: number | null }> => {
    if (!q.open || q.room < outputs) return { landed: false, first: null };
    const before = await counters(q);
    if (before.free < outputs) {
      close(q, 'queue full');
      return { landed: false, first: null };
    }
    try {
      await send(payer, ixs);
    } catch (e) {
      stats.refused++;
      close(q, `transaction refused: ${String(e)}`, 'warn');
      return { landed: false, first: null };
    }
    const after = await counters(q);
    q.room = Math.min(q.room - outputs, after.free);
    stats.v2Outputs += outputs;
    if (q.room <= 0) close(q, `budget of outputs used, next leaf index ${after.next}`);
    return { landed: true, first: after.next - before.next === outputs ? before.next : null };
  };

  // ---- setup (or the saved state of an earlier run on this chain) ----
  const admin = wallets[0];
  const queueFor = (i: number, k: number): Queue | undefined => {
    const q = queues[i % queues.length];
    return q.open && q.room >= k ? q : roomy(k)[0];
  };
  let mint: Address;
  if (resume) {
    mint = resume.mint;
    const held = (h: LightDemoState['sol'][number]): Held[] => {
      const queue = queues.find((q) => q.tree.queue === h.queue);
      return queue && h.owner < n ? [{ owner: h.owner, queue, leafIndex: h.leafIndex, value: BigInt(h.value) }] : [];
    };
    sol.push(...resume.sol.flatMap(held));
    tokens.push(...resume.tokens.flatMap(held));
    log('ZK Compression demo resumed', { mint, openV2Queues: queues.filter((q) => q.open).length, spendable: sol.length + tokens.length });
  } else {
    const mintSigner = await generateKeyPairSigner();
    mint = mintSigner.address;
    await send(admin, await getCreateCompressedMintInstructions({
      payer: admin, mint: mintSigner, mintAuthority: admin.address, decimals: COMPRESSED_DEMO_DECIMALS, rentLamports: await client.rent(82),
    }));
    for (let i = 0; i < n; i++) {
      const w = wallets[i];
      // The first compression on a chain creates the SOL pool PDA: at least its rent-exempt minimum (890 880).
      const q = queueFor(i, 1);
      if (q) {
        const lamports = 1_000_000_000n + BigInt(rand(1_000_000));
        const r = await sendV2(q, 1, w, [getCompressSolInstruction({ payer: w, lamports, outputTree: q.tree })]);
        if (r.landed) stats.compressions++;
        if (r.first !== null) sol.push({ owner: i, queue: q, leafIndex: r.first, value: lamports });
      }
      await send(w, [getCompressSolInstruction({ payer: w, lamports: 250_000_000n, outputTree: LIGHT_STATE_TREES_V1[i % LIGHT_STATE_TREES_V1.length] })]);
      stats.compressions++;
      stats.v1Outputs++;
    }
    // Compressed tokens for every wallet, the wallets grouped by the queue they were spread over.
    const groups = new Map<Queue, number[]>();
    for (let i = 0; i < n; i++) {
      const q = queueFor(i, 1);
      if (q) groups.set(q, [...(groups.get(q) ?? []), i]);
    }
    for (const [q, members] of groups) {
      const take = members.slice(0, q.room);
      const amounts = take.map(() => (1_000n + BigInt(rand(1_000))) * 10n ** BigInt(COMPRESSED_DEMO_DECIMALS));
      const ix = await getCompressedMintToInstruction({
        payer: admin, mint, mintAuthority: admin, outputTree: q.tree,
        recipients: take.map((i, k) => ({ owner: wallets[i].address, amount: amounts[k] })),
      });
      const r = await sendV2(q, take.length, admin, [ix]);
      if (r.landed) stats.tokenMints++;
      if (r.first !== null) take.forEach((i, k) => tokens.push({ owner: i, queue: q, leafIndex: r.first! + k, value: amounts[k] }));
    }
    // One V1 mint (a token account in a V1 tree: readable, not spendable without a prover).
    await send(admin, [await getCompressedMintToInstruction({
      payer: admin, mint, mintAuthority: admin, outputTree: LIGHT_STATE_TREES_V1[0],
      recipients: [{ owner: admin.address, amount: 500n * 10n ** BigInt(COMPRESSED_DEMO_DECIMALS) }],
    })]);
    stats.tokenMints++;
    stats.v1Outputs++;
    log('ZK Compression demo ready', { mint, openV2Queues: queues.filter((q) => q.open).length, v2Outputs: stats.v2Outputs });
  }

  // ---- steady activity ----
  /** Spends one held account by index: part to another wallet (change back) or, with one output of room, all of it. */
  const transfer = async (kind: 'sol' | 'token'): Promise<boolean> => {
    const pool = kind === 'sol' ? sol : tokens;
    const candidates = pool.filter((h) => h.queue.open && h.queue.room >= 1);
    if (!candidates.length) return false;
    const h = candidates[rand(candidates.length)];
    pool.splice(pool.indexOf(h), 1);
    const to = (h.owner + 1 + rand(n - 1)) % n;
    const split = h.queue.room >= 2 && h.value > 1n;
    const amount = split ? 1n + (h.value * BigInt(10 + rand(50))) / 100n : h.value;
    const outputs = amount === h.value ? 1 : 2;
    const owner = wallets[h.owner];
    const ix = kind === 'sol'
      ? getTransferCompressedSolByIndexInstruction({ payer: owner, owner, from: { leafIndex: h.leafIndex, tree: h.queue.tree, lamports: h.value }, recipient: wallets[to].address, lamports: amount })
      : getTransferCompressedTokensByIndexInstruction({ payer: owner, owner, mint, from: { leafIndex: h.leafIndex, tree: h.queue.tree, amount: h.value }, recipient: wallets[to].address, amount });
    const r = await sendV2(h.queue, outputs, owner, [ix]);
    if (!r.landed) {
      pool.push(h); // not spent (its queue is closed now, so it stays put)
      return true;
    }
    if (kind === 'sol') stats.solTransfers++;
    else stats.tokenTransfers++;
    if (r.first !== null) {
      if (outputs === 2) pool.push({ owner: h.owner, queue: h.queue, leafIndex: r.first, value: h.value - amount });
      pool.push({ owner: to, queue: h.queue, leafIndex: r.first + outputs - 1, value: amount });
    }
    return true;
  };
  let v1Turn = 0;
  const compressV1 = async (): Promise<boolean> => {
    const i = rand(n);
    const tree = LIGHT_STATE_TREES_V1[v1Turn++ % LIGHT_STATE_TREES_V1.length];
    const lamports = 1_000_000n + BigInt(rand(1_000_000));
    await send(wallets[i], [getCompressSolInstruction({ payer: wallets[i], lamports, recipient: wallets[rand(n)].address, outputTree: tree })]);
    stats.compressions++;
    stats.v1Outputs++;
    return true;
  };
  const compressV2 = async (): Promise<boolean> => {
    const open = roomy(1);
    if (!open.length) return false;
    const q = open.reduce((a, b) => (b.room > a.room ? b : a)); // spread: the queue with the most room left
    const i = rand(n);
    const lamports = 1_000_000n + BigInt(rand(9_000_000));
    const r = await sendV2(q, 1, wallets[i], [getCompressSolInstruction({ payer: wallets[i], lamports, outputTree: q.tree })]);
    if (r.landed) stats.compressions++;
    if (r.first !== null) sol.push({ owner: i, queue: q, leafIndex: r.first, value: lamports });
    return true;
  };

  let turn = 0;
  const tick = async () => {
    for (let k = 0; k < OPS.length; k++) {
      const op = OPS[turn++ % OPS.length];
      const done = op === 'sol-transfer' ? await transfer('sol')
        : op === 'token-transfer' ? await transfer('token')
          : op === 'compress-v2' ? await compressV2()
            : await compressV1();
      if (done) return;
    }
  };

  return {
    info: {
      mint,
      decimals: COMPRESSED_DEMO_DECIMALS,
      stats,
      openV2Queues: () => queues.filter((q) => q.open).map((q) => q.tree.queue),
      v2Stopped: () => stopped,
    },
    tick,
    state: () => {
      const saved = (h: Held) => ({ owner: h.owner, queue: h.queue.tree.queue, leafIndex: h.leafIndex, value: h.value.toString() });
      return {
        mint, sol: sol.map(saved), tokens: tokens.map(saved),
        queues: queues.map((q) => ({ queue: q.tree.queue, room: q.room, open: q.open })),
      };
    },
  };
}
