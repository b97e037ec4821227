/**
 * A synthetic, mainnet-shaped ZK Compression dataset written through the ZK store (what ingestion would have
 * written), deterministic for a seed:
 *
 * - state trees: `stateTreesV1` V1 trees (height 26) and `stateTreesV2` V2 batched trees (height 32), with
 *   `v2Share` of the accounts in the V2 trees; the newest ≈1,000–1,500 outputs of each V2 tree still wait in its
 *   output queue (leaf not in the tree yet; appends are batch events of 500);
 * - compressed accounts: wallet-owned compressed SOL accounts, compressed token accounts (`mints` mints picked
 *   Zipf-like; whales hold 1–3 of the top mints; 2% delegated, 0.3% frozen; token data in the Light layout,
 *   discriminator 2 in V1 trees and the V2 one in V2 trees) and `programShare` program-owned accounts with data and
 *   an address (one of the address-tree elements);
 * - owners: a few whales with 10k–50k accounts (at 1M, scaled), everyone else 1–20 (P(k) ∝ k^-1.2);
 * - `spentShare` spent: V1 leaves nullified by the forester (zero leaf); V2 inputs get input-queue indexes, and all
 *   but the newest ≈300 per tree are nullified by batch events (leaf = the nullifier);
 * - `addressTrees` V2 address trees (height 40) holding `addressShare` × accounts random addresses (< 2^248, as
 *   Light derives them) as indexed elements, linked in value order, inserted in random order (leaf index = insert
 *   order, address-append events of 250).
 *
 * Tree nodes are a consistent Poseidon tree (every stored inner node = Poseidon(left, right), nodes right of the
 * last leaf absent = zero hash of their level): computed level by level on worker threads (bench/gen/zk-poseidon.ts),
 * so the gateway's proof methods rebuild and verify real proofs. Account hashes, data hashes and nullifiers are
 * random field elements (nothing recomputes them); no transactions or signature lists are generated (none of the
 * benchmarked methods reads them). Rows go through the store's bulk statements (`writeZk`: accounts, token rows,
 * balances, spends, batch events, indexed elements; state nodes through its unnest upsert).
 */
import { base58ToBytes, bytesToBase58 } from '../../src/core/encoding.js';
import type { Db } from '../../src/store/db.js';
import { advanceCheckpoint } from '../../src/store/chain.js';
import { run } from '../../src/store/bulk.js';
import { upsertTrees } from '../../src/store/zk/trees.js';
import { stateNodesStatement } from '../../src/store/zk/state-tree.js';
import { emptyZkWrite, TREE_TYPE, type TreeTypeCode, type ZkAccountRow, type ZkBatchEventRow, type ZkSpendRow, type ZkStateNodeRow, type ZkWrite } from '../../src/store/zk/types.js';
import { writeZk } from '../../src/store/zk/write.js';
import { HIGHEST_ADDRESS_PLUS_ONE, bigintToBytes32, initPoseidon, poseidonPair } from '../../src/proofs/light/index.js';
import { Rng, Zipf } from './rng.js';
import { buildTree, PoseidonPool, type TreeNodes } from './zk-poseidon.js';

/** Bump when the generated data changes, so a kept database of an older layout is regenerated. */
export const DATA_VERSION = 1;

export const COMPRESSED_TOKEN_PROGRAM = 'cTokenmWW8bLPjZEBAUgYy3zKxQZW6VKi7bqNFEVv3m';

export interface ZkDataConfig {
  accounts: number;
  seed: number;
  stateTreesV1: number;
  stateTreesV2: number;
  /** Share of the accounts in V2 (batched) state trees. */
  v2Share: number;
  addressTrees: number;
  /** Address-tree elements per account (all trees together). */
  addressShare: number;
  /** Share of accounts owned by programs (with data and an address). */
  programShare: number;
  /** Share of wallet accounts that are token accounts (whales: `whaleTokenShare`). */
  tokenShare: number;
  whaleTokenShare: number;
  spentShare: number;
  mints: number;
  /** Whale holdings at 1M accounts (scaled linearly with `accounts`, at least 200 each). */
  whalesAt1M: number[];
}

export const DEFAULT_ZK_CONFIG: Omit<ZkDataConfig, 'accounts' | 'seed'> = {
  stateTreesV1: 4,
  stateTreesV2: 2,
  v2Share: 0.4,
  addressTrees: 2,
  addressShare: 0.2,
  programShare: 0.05,
  tokenShare: 0.75,
  whaleTokenShare: 0.95,
  spentShare: 0.15,
  mints: 40,
  whalesAt1M: [50_000, 30_000, 20_000, 15_000, 10_000],
};

export interface ZkTreeStats {
  tree: string;
  type: 'StateV1' | 'StateV2' | 'AddressV2';
  height: number;
  /** Accounts created in the tree (state) / elements (address, element 0 included). */
  entries: number;
  /** Leaves in the tree (V2 state: appended). */
  leaves: number;
  nodes: number;
  rootSeq: number;
  root: string;
}

export interface ZkDataStats {
  accounts: { total: number; token: number; sol: number; program: number; spent: number; v1: number; v2: number; inOutputQueue: number; withAddress: number };
  trees: ZkTreeStats[];
  addresses: number;
  mints: number;
  owners: { whales: { owner: string; accounts: number; unspentTokenAccounts: number }[]; small: number; smallWithTokens: number };
  rows: { accounts: number; stateNodes: number; indexedElements: number; batchEvents: number };
  timings: {
    /** Planning (random keys, owners, trees, spends) and the address trees' value order. */
    planMs: number;
    /** One Poseidon pair hash on this thread, measured before the trees (µs). */
    poseidonUsOneCore: number;
    workers: number;
    /** Every tree's nodes on the worker pool. */
    poseidonMs: number;
    hashes: number;
    hashesPerSec: number;
    writeAccountsMs: number;
    writeNodesMs: number;
    writeElementsMs: number;
    generateMs: number;
  };
}

const FIRST_SLOT = 280_000_000;
const LAST_SLOT = 330_000_000;
const STATE_BATCH = 500;
const ADDRESS_BATCH = 250;
const KIND_SOL = 0;
const KIND_TOKEN = 1;
const KIND_PROGRAM = 2;

interface StateTree {
  tree: string;
  queue: string;
  type: TreeTypeCode;
  height: number;
  count: number;
  /** Leaves in the tree (V1: all; V2: appended). */
  appended: number;
  spent: number;
  /** V2: input-queue entries / those nullified in the tree. */
  queued: number;
  nullified: number;
  rootSeq: number;
  events: ZkBatchEventRow[];
}

interface AddressTree {
  tree: string;
  /** n elements (element 0 = value 0), 32 bytes each, leaf order. */
  values: Uint8Array;
  nextValues: Uint8Array;
  nextIndex: Int32Array;
  n: number;
  rootSeq: number;
  events: ZkBatchEventRow[];
}

const b58 = (buf: Uint8Array, i: number) => bytesToBase58(buf.subarray(i * 32, i * 32 + 32));

/** Fills `db` (migrated, empty) with the dataset; returns what it wrote. */
export async function generateZkData(db: Db, cfg: ZkDataConfig, log: (s: string) => void, workers = 2): Promise<ZkDataStats> {
  const t0 = performance.now();
  const rng = new Rng(cfg.seed);
  const key = () => bytesToBase58(rng.bytes(32));
  const fieldInto = (buf: Uint8Array, i: number) => {
    buf.set(rng.bytes(32), i * 32);
    buf[i * 32] = 0; // < 2^248: a field element, and an address Light could derive
  };
  const N = cfg.accounts;

  // --- trees
  const stateTrees: StateTree[] = [];
  for (let i = 0; i < cfg.stateTreesV1 + cfg.stateTreesV2; i++) {
    const v2 = i >= cfg.stateTreesV1;
    stateTrees.push({ tree: key(), queue: key(), type: v2 ? TREE_TYPE.StateV2 : TREE_TYPE.StateV1, height: v2 ? 32 : 26, count: 0, appended: 0, spent: 0, queued: 0, nullified: 0, rootSeq: 0, events: [] });
  }
  const v1Trees = stateTrees.filter((t) => t.type === TREE_TYPE.StateV1);
  const v2Trees = stateTrees.filter((t) => t.type === TREE_TYPE.StateV2);
  const addressCount = Math.max(cfg.addressTrees, Math.round(N * cfg.addressShare));
  const addressTrees: AddressTree[] = [];
  for (let i = 0; i < cfg.addressTrees; i++) {
    const n = 1 + Math.floor(addressCount / cfg.addressTrees) + (i < addressCount % cfg.addressTrees ? 1 : 0);
    addressTrees.push({ tree: key(), values: new Uint8Array(n * 32), nextValues: new Uint8Array(n * 32), nextIndex: new Int32Array(n), n, rootSeq: 0, events: [] });
  }

  // --- owners: whales, then owners of 1–20 until every wallet account has one; shuffled over the accounts
  const programAccounts = Math.min(Math.round(N * cfg.programShare), addressCount);
  const walletAccounts = N - programAccounts;
  const scale = N / 1_000_000;
  const whaleSizes = cfg.whalesAt1M.map((n) => Math.max(200, Math.round(n * scale)));
  if (whaleSizes.reduce((s, n) => s + n, 0) > walletAccounts / 2) throw new Error(`--accounts ${N} is too small for the whales (${whaleSizes.join(', ')})`);
  const ownerCounts: number[] = [];
  const who = new Int32Array(N).fill(-1);
  let filled = 0;
  for (const n of whaleSizes) {
    who.fill(ownerCounts.push(n) - 1, filled, filled + n);
    filled += n;
  }
  const sizeCdf: number[] = [];
  let acc = 0;
  for (let k = 1; k <= 20; k++) sizeCdf.push((acc += k ** -1.2));
  while (filled < walletAccounts) {
    const u = rng.next() * acc;
    const n = Math.min(sizeCdf.findIndex((c) => c >= u) + 1, walletAccounts - filled);
    who.fill(ownerCounts.push(n) - 1, filled, filled + n);
    filled += n;
  }
  for (let i = who.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const tmp = who[i];
    who[i] = who[j];
    who[j] = tmp;
  }
  const owners = new Uint8Array(ownerCounts.length * 32);
  for (let o = 0; o < ownerCounts.length; o++) owners.set(rng.bytes(32), o * 32);
  const whaleCount = whaleSizes.length;

  // --- accounts: kind, tree and leaf, hash
  const kind = new Uint8Array(N);
  const treeOf = new Uint8Array(N);
  const leaf = new Int32Array(N);
  const hashes = new Uint8Array(N * 32);
  for (let i = 0; i < N; i++) {
    const o = who[i];
    kind[i] = o < 0 ? KIND_PROGRAM : rng.chance(o < whaleCount ? cfg.whaleTokenShare : cfg.tokenShare) ? KIND_TOKEN : KIND_SOL;
    const t = v2Trees.length && rng.chance(cfg.v2Share) ? v2Trees[rng.int(v2Trees.length)] : v1Trees[rng.int(v1Trees.length)];
    treeOf[i] = stateTrees.indexOf(t);
    leaf[i] = t.count++;
    fieldInto(hashes, i);
  }
  // V2 trees: the newest outputs wait in the output queue; the rest was appended by batches of 500.
  for (const t of v2Trees) {
    t.appended = Math.max(0, Math.floor((t.count - 1_000) / STATE_BATCH) * STATE_BATCH);
    for (let lo = 0, seq = 1; lo < t.appended; lo += STATE_BATCH, seq++) {
      t.events.push({ tree: t.tree, kind: 'append', seq, oldNextIndex: lo, newNextIndex: lo + STATE_BATCH, slot: 0, signature: null });
    }
  }
  for (const t of v1Trees) t.appended = t.count;

  // --- spends: V1 nullified by the forester (zero leaf); V2 into the input queue, nullified by batches of 500
  const spent = new Uint8Array(N);
  const spentV2: number[] = [];
  for (let i = 0; i < N; i++) {
    const t = stateTrees[treeOf[i]];
    if (leaf[i] >= t.appended || !rng.chance(cfg.spentShare)) continue;
    spent[i] = 1;
    t.spent++;
    if (t.type === TREE_TYPE.StateV2) spentV2.push(i);
  }
  rng.shuffle(spentV2);
  const nqi = new Map<number, number>();
  for (const i of spentV2) nqi.set(i, stateTrees[treeOf[i]].queued++);
  for (const t of v2Trees) {
    t.nullified = Math.max(0, Math.floor((t.queued - 300) / STATE_BATCH) * STATE_BATCH);
    let seq = t.events.length + 1;
    for (let lo = 0; lo < t.nullified; lo += STATE_BATCH) {
      t.events.push({ tree: t.tree, kind: 'nullify', seq: seq++, oldNextIndex: lo, newNextIndex: lo + STATE_BATCH, slot: 0, signature: null });
    }
    t.rootSeq = t.events.length;
  }
  for (const t of v1Trees) t.rootSeq = t.count + t.spent;
  const nullifiers = new Map<number, Uint8Array>();
  for (const i of spentV2) {
    if (nqi.get(i)! >= stateTrees[treeOf[i]].nullified) continue;
    const b = rng.bytes(32);
    b[0] = 0;
    nullifiers.set(i, b);
  }

  // --- leaves of the state trees
  const leafBufs = stateTrees.map((t) => new Uint8Array(t.appended * 32));
  for (let i = 0; i < N; i++) {
    const t = stateTrees[treeOf[i]];
    if (leaf[i] >= t.appended) continue;
    const dst = leafBufs[treeOf[i]];
    if (!spent[i]) dst.set(hashes.subarray(i * 32, i * 32 + 32), leaf[i] * 32);
    else if (t.type === TREE_TYPE.StateV2) dst.set(nullifiers.get(i) ?? hashes.subarray(i * 32, i * 32 + 32), leaf[i] * 32);
    // V1 spent: nullified by the forester, the leaf is zero
  }

  // --- address trees: random values in insert order (leaf 1..), linked in value order
  const highest = bigintToBytes32(HIGHEST_ADDRESS_PLUS_ONE);
  for (const a of addressTrees) {
    for (let k = 1; k < a.n; k++) fieldInto(a.values, k);
    const order = Array.from({ length: a.n }, (_, k) => k).sort((x, y) => Buffer.compare(a.values.subarray(x * 32, x * 32 + 32), a.values.subarray(y * 32, y * 32 + 32)));
    if (order[0] !== 0) throw new Error('zk: an address value of 0');
    for (let p = 0; p < a.n; p++) {
      const k = order[p];
      if (p + 1 < a.n) {
        const nx = order[p + 1];
        if (Buffer.compare(a.values.subarray(k * 32, k * 32 + 32), a.values.subarray(nx * 32, nx * 32 + 32)) === 0) throw new Error('zk: duplicate address value');
        a.nextIndex[k] = nx;
        a.nextValues.set(a.values.subarray(nx * 32, nx * 32 + 32), k * 32);
      } else {
        a.nextIndex[k] = 0;
        a.nextValues.set(highest, k * 32);
      }
    }
    for (let lo = 1, seq = 1; lo < a.n; lo += ADDRESS_BATCH, seq++) {
      a.events.push({ tree: a.tree, kind: 'address_append', seq, oldNextIndex: lo, newNextIndex: Math.min(a.n, lo + ADDRESS_BATCH), slot: 0, signature: null });
    }
    a.rootSeq = a.events.length;
  }
  // Event slots: spread over the slot range in seq order.
  for (const t of [...v2Trees, ...addressTrees]) t.events.forEach((e, k) => (e.slot = FIRST_SLOT + Math.floor(((k + 1) * (LAST_SLOT - FIRST_SLOT)) / (t.events.length + 1))));
  const planMs = performance.now() - t0;
  log(`zk: plan: ${N.toLocaleString('en-US')} accounts over ${stateTrees.length} state trees (${stateTrees.map((t) => t.count.toLocaleString('en-US')).join(', ')}), ` +
    `${ownerCounts.length.toLocaleString('en-US')} owners (${whaleCount} whales: ${whaleSizes.join(', ')}), ${addressTrees.map((a) => (a.n - 1).toLocaleString('en-US')).join(' + ')} addresses in ${addressTrees.length} address trees (${(planMs / 1000).toFixed(1)} s)`);

  // --- Poseidon: every tree's nodes on the worker pool
  await initPoseidon();
  let x: Uint8Array = new Uint8Array(32);
  const probe = bigintToBytes32(12345n);
  const tp = performance.now();
  for (let k = 0; k < 2000; k++) x = poseidonPair(x, probe);
  const poseidonUsOneCore = ((performance.now() - tp) * 1000) / 2000;
  const expected = stateTrees.reduce((s, t) => s + t.appended, 0) + addressTrees.reduce((s, a) => s + 2 * a.n, 0);
  log(`zk: Poseidon ${poseidonUsOneCore.toFixed(0)} µs per hash on one core; computing ≈${expected.toLocaleString('en-US')} hashes on ${workers} worker threads …`);
  const pool = await PoseidonPool.start(workers);
  const t1 = performance.now();
  let stateNodes: (TreeNodes | null)[];
  let addressNodes: TreeNodes[];
  const progress = setInterval(() => {
    const s = (performance.now() - t1) / 1000;
    log(`zk: Poseidon: ${pool.hashes.toLocaleString('en-US')} hashes in ${s.toFixed(0)} s (${Math.round(pool.hashes / s).toLocaleString('en-US')}/s)`);
  }, 30_000);
  try {
    [stateNodes, addressNodes] = await Promise.all([
      Promise.all(stateTrees.map((t, i) => (t.appended ? buildTree(pool, { kind: 'state', height: t.height, count: t.appended, leaves: leafBufs[i] }) : Promise.resolve(null)))),
      Promise.all(addressTrees.map((a) => buildTree(pool, { kind: 'addressV2', height: 40, count: a.n, values: a.values, nextValues: a.nextValues }))),
    ]);
  } finally {
    clearInterval(progress);
    await pool.close();
  }
  const poseidonMs = performance.now() - t1;
  const hashCount = [...stateNodes, ...addressNodes].reduce((s, t) => s + (t?.hashes ?? 0), 0);
  log(`zk: Poseidon: ${hashCount.toLocaleString('en-US')} hashes in ${(poseidonMs / 1000).toFixed(1)} s (${Math.round(hashCount / (poseidonMs / 1000)).toLocaleString('en-US')} hashes/s)`);

  // --- write: trees, checkpoint, batch events
  await upsertTrees(db, [
    ...stateTrees.map((t) => ({ tree: t.tree, queue: t.queue, treeType: t.type, height: t.height, rootHistoryCapacity: t.type === TREE_TYPE.StateV1 ? 2400 : 200, owner: null, source: 'config' as const })),
    ...addressTrees.map((a) => ({ tree: a.tree, queue: a.tree, treeType: TREE_TYPE.AddressV2, height: 40, rootHistoryCapacity: 200, owner: null, source: 'config' as const })),
  ]);
  await advanceCheckpoint(db, LAST_SLOT);
  const events = [...v2Trees.flatMap((t) => t.events), ...addressTrees.flatMap((a) => a.events)];
  for (let k = 0; k < events.length; k += 5_000) await db.tx((q) => writeZk(q, { ...emptyZkWrite(), batchEvents: events.slice(k, k + 5_000) }));

  // --- write: accounts (+ token rows, balances) and spends, one transaction per batch, the next batch built meanwhile
  const rng2 = new Rng(cfg.seed + 1_000_003);
  const mintKeys = Array.from({ length: cfg.mints }, () => bytesToBase58(rng2.bytes(32)));
  const mintBytes = new Map(mintKeys.map((m) => [m, base58ToBytes(m)]));
  const mintZipf = new Zipf(cfg.mints, 1.1, rng2);
  const whaleMints = whaleSizes.map(() => Array.from({ length: rng2.range(1, 3) }, () => mintKeys[rng2.int(Math.min(10, cfg.mints))]));
  const delegates = Array.from({ length: 500 }, () => bytesToBase58(rng2.bytes(32)));
  const delegateBytes = new Map(delegates.map((d) => [d, base58ToBytes(d)]));
  const programs = Array.from({ length: 6 }, () => bytesToBase58(rng2.bytes(32)));
  const ownerKey = (o: number) => b58(owners, o);
  // program accounts take addresses from the address trees, round robin, in insert order
  const addrNext = addressTrees.map(() => 1);
  let addrTree = 0;
  const unspentTokens = new Int32Array(ownerCounts.length);
  const stats = { token: 0, sol: 0, program: 0, spent: 0, v1: 0, v2: 0, inOutputQueue: 0, withAddress: 0 };
  const V1_TOKEN_DISCRIMINATOR = 2n;
  const V2_TOKEN_DISCRIMINATOR = 3n << 56n; // bytes [0,0,0,0,0,0,0,3] read little-endian

  const buildBatch = (lo: number, hi: number): ZkWrite => {
    const w = emptyZkWrite();
    for (let i = lo; i < hi; i++) {
      const t = stateTrees[treeOf[i]];
      const v2 = t.type === TREE_TYPE.StateV2;
      const hash = b58(hashes, i);
      const slotCreated = FIRST_SLOT + Math.floor((i * (LAST_SLOT - FIRST_SLOT)) / N);
      const dataHash = new Uint8Array(rng2.bytes(32));
      dataHash[0] = 0;
      let row: ZkAccountRow;
      const base = { hash, tree: t.tree, queue: t.queue, treeType: t.type, leafIndex: leaf[i], seq: v2 ? null : leaf[i] + 1, slotCreated, inOutputQueue: v2 };
      if (kind[i] === KIND_TOKEN) {
        const o = who[i];
        const owner = ownerKey(o);
        const mint = o < whaleCount ? rng2.pick(whaleMints[o]) : mintKeys[mintZipf.sample()];
        const amount = rng2.logUniform(1, 1e12);
        const delegate = rng2.chance(0.02) ? rng2.pick(delegates) : null;
        const frozen = rng2.chance(0.003);
        row = {
          ...base, address: null, owner: COMPRESSED_TOKEN_PROGRAM, lamports: 0n,
          data: { discriminator: v2 ? V2_TOKEN_DISCRIMINATOR : V1_TOKEN_DISCRIMINATOR, data: tokenDataBytes(mintBytes.get(mint)!, owners.subarray(o * 32, o * 32 + 32), amount, delegate ? delegateBytes.get(delegate)! : null, frozen), dataHash: bytesToBase58(dataHash) },
          token: { mint, owner, amount, delegate, state: frozen ? 'frozen' : 'initialized', tlv: null },
        };
        stats.token++;
        if (!spent[i]) unspentTokens[o]++;
      } else if (kind[i] === KIND_SOL) {
        row = { ...base, address: null, owner: ownerKey(who[i]), lamports: rng2.logUniform(10_000, 100_000_000_000), data: null, token: null };
        stats.sol++;
      } else {
        for (let tries = 0; addrNext[addrTree] >= addressTrees[addrTree].n && tries < addressTrees.length; tries++) addrTree = (addrTree + 1) % addressTrees.length;
        const a = addressTrees[addrTree];
        const address = addrNext[addrTree] < a.n ? b58(a.values, addrNext[addrTree]++) : null;
        addrTree = (addrTree + 1) % addressTrees.length;
        if (address) stats.withAddress++;
        row = {
          ...base, address, owner: rng2.pick(programs), lamports: rng2.chance(0.3) ? rng2.logUniform(890_880, 10_000_000) : 0n,
          data: { discriminator: (BigInt(rng2.u32()) << 32n) | BigInt(rng2.u32()), data: rng2.bytes(rng2.range(40, 200)), dataHash: bytesToBase58(dataHash) },
          token: null,
        };
        stats.program++;
      }
      w.accounts.push(row);
      if (v2) {
        stats.v2++;
        if (leaf[i] >= t.appended) stats.inOutputQueue++;
      } else stats.v1++;
      if (spent[i]) {
        stats.spent++;
        const q = nqi.get(i);
        const nf = nullifiers.get(i);
        const spend: ZkSpendRow = v2
          ? { hash, nullifier: bytesToBase58(nf ?? fieldOf(rng2)), txHash: bytesToBase58(fieldOf(rng2)), nullifierQueueIndex: q! }
          : { hash, nullifier: null, txHash: null, nullifierQueueIndex: null };
        w.spends.push(spend);
      }
    }
    return w;
  };

  const t2 = performance.now();
  const ACCOUNT_BATCH = 4_000;
  let inflight: Promise<void> | null = null;
  let lastLog = t2;
  for (let lo = 0; lo < N; lo += ACCOUNT_BATCH) {
    const w = buildBatch(lo, Math.min(N, lo + ACCOUNT_BATCH));
    if (inflight) await inflight;
    inflight = db.tx((q) => writeZk(q, w));
    if (performance.now() - lastLog > 30_000) {
      lastLog = performance.now();
      const s = (lastLog - t2) / 1000;
      log(`zk: accounts: ${lo.toLocaleString('en-US')} / ${N.toLocaleString('en-US')} in ${s.toFixed(0)} s (${Math.round(lo / s).toLocaleString('en-US')}/s)`);
    }
  }
  if (inflight) await inflight;
  const writeAccountsMs = performance.now() - t2;
  log(`zk: accounts written in ${(writeAccountsMs / 1000).toFixed(1)} s (${Math.round(N / (writeAccountsMs / 1000)).toLocaleString('en-US')} accounts/s, with token rows, balances and spends)`);

  // --- write: tree nodes (every level of every tree), two statements in flight
  const t3 = performance.now();
  const NODE_BATCH = 20_000;
  let nodeRows = 0;
  const nodeJobs: (() => ZkStateNodeRow[])[] = [];
  const treeStats: ZkTreeStats[] = [];
  const addJobs = (tree: string, nodes: TreeNodes, seq: number) => {
    const { height } = nodes;
    for (let l = 0; l <= height; l++) {
      const lvl = nodes.levels[l];
      const count = lvl.length / 32;
      for (let lo = 0; lo < count; lo += NODE_BATCH) {
        const hi = Math.min(count, lo + NODE_BATCH);
        nodeJobs.push(() => {
          const rows: ZkStateNodeRow[] = [];
          for (let j = lo; j < hi; j++) rows.push({ tree, nodeIdx: 2 ** (height - l) + j, leafIdx: l === 0 ? j : null, level: l, hash: b58(lvl, j), seq });
          return rows;
        });
      }
      nodeRows += count;
    }
  };
  stateTrees.forEach((t, i) => {
    const nodes = stateNodes[i];
    if (nodes) addJobs(t.tree, nodes, t.rootSeq);
    treeStats.push({
      tree: t.tree, type: t.type === TREE_TYPE.StateV1 ? 'StateV1' : 'StateV2', height: t.height, entries: t.count, leaves: t.appended,
      nodes: nodes ? nodes.levels.reduce((s, b) => s + b.length / 32, 0) : 0, rootSeq: t.rootSeq, root: nodes ? b58(nodes.levels[t.height], 0) : '',
    });
  });
  addressTrees.forEach((a, i) => {
    const nodes = addressNodes[i];
    addJobs(a.tree, nodes, a.rootSeq);
    treeStats.push({ tree: a.tree, type: 'AddressV2', height: 40, entries: a.n, leaves: a.n, nodes: nodes.levels.reduce((s, b) => s + b.length / 32, 0), rootSeq: a.rootSeq, root: b58(nodes.levels[40], 0) });
  });
  let nextJob = 0;
  const nodeWriter = async () => {
    while (nextJob < nodeJobs.length) {
      const s = stateNodesStatement(nodeJobs[nextJob++]());
      await run(db, s);
    }
  };
  await Promise.all([nodeWriter(), nodeWriter()]);
  const writeNodesMs = performance.now() - t3;
  log(`zk: ${nodeRows.toLocaleString('en-US')} tree nodes written in ${(writeNodesMs / 1000).toFixed(1)} s`);

  // --- write: indexed elements of the address trees
  const t4 = performance.now();
  let elementRows = 0;
  for (const a of addressTrees) {
    for (let lo = 0; lo < a.n; lo += NODE_BATCH) {
      const w = emptyZkWrite();
      for (let k = lo; k < Math.min(a.n, lo + NODE_BATCH); k++) {
        w.indexedElements.push({ tree: a.tree, leafIndex: k, value: b58(a.values, k), nextIndex: a.nextIndex[k], nextValue: b58(a.nextValues, k), seq: a.rootSeq });
      }
      elementRows += w.indexedElements.length;
      await db.tx((q) => writeZk(q, w));
    }
  }
  const writeElementsMs = performance.now() - t4;
  log(`zk: ${elementRows.toLocaleString('en-US')} indexed elements written in ${(writeElementsMs / 1000).toFixed(1)} s`);

  // --- owners, for the benchmark's request parameters
  await db.exec('CREATE TABLE bench_zk_owners (owner TEXT PRIMARY KEY, accounts INT NOT NULL, token_accounts INT NOT NULL, whale BOOLEAN NOT NULL)');
  for (let lo = 0; lo < ownerCounts.length; lo += 50_000) {
    const hi = Math.min(ownerCounts.length, lo + 50_000);
    const idx = Array.from({ length: hi - lo }, (_, k) => lo + k);
    await db.query('INSERT INTO bench_zk_owners SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::boolean[])', [
      idx.map(ownerKey), idx.map((o) => ownerCounts[o]), idx.map((o) => unspentTokens[o]), idx.map((o) => o < whaleCount),
    ]);
  }

  const generateMs = performance.now() - t0;
  return {
    accounts: { total: N, ...stats },
    trees: treeStats,
    addresses: addressTrees.reduce((s, a) => s + a.n - 1, 0),
    mints: cfg.mints,
    owners: {
      whales: whaleSizes.map((n, o) => ({ owner: ownerKey(o), accounts: n, unspentTokenAccounts: unspentTokens[o] })),
      small: ownerCounts.length - whaleCount,
      smallWithTokens: unspentTokens.reduce((s, n, o) => s + (o >= whaleCount && n > 0 ? 1 : 0), 0),
    },
    rows: { accounts: N, stateNodes: nodeRows, indexedElements: elementRows, batchEvents: events.length },
    timings: {
      planMs: Math.round(planMs), poseidonUsOneCore: Number(poseidonUsOneCore.toFixed(1)), workers, poseidonMs: Math.round(poseidonMs), hashes: hashCount,
      hashesPerSec: Math.round(hashCount / (poseidonMs / 1000)), writeAccountsMs: Math.round(writeAccountsMs), writeNodesMs: Math.round(writeNodesMs),
      writeElementsMs: Math.round(writeElementsMs), generateMs: Math.round(generateMs),
    },
  };
}

function fieldOf(rng: Rng): Uint8Array {
  const b = rng.bytes(32);
  b[0] = 0;
  return b;
}

/** Compressed token account data (Light `TokenData`, borsh): mint, owner, amount u64 LE, Option<delegate>, state (0 initialized, 1 frozen), Option<tlv>. */
function tokenDataBytes(mint: Uint8Array, owner: Uint8Array, amount: bigint, delegate: Uint8Array | null, frozen: boolean): Uint8Array {
  const out = new Uint8Array(32 + 32 + 8 + 1 + (delegate ? 32 : 0) + 1 + 1);
  out.set(mint, 0);
  out.set(owner, 32);
  new DataView(out.buffer).setBigUint64(64, amount, true);
  let p = 72;
  out[p++] = delegate ? 1 : 0;
  if (delegate) {
    out.set(delegate, p);
    p += 32;
  }
  out[p++] = frozen ? 1 : 0;
  out[p] = 0; // tlv: None
  return out;
}
