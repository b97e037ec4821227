/**
 * The drift detector on ZK Compression V2 batched state trees and V2 address trees, with Photon's recorded
 * transactions (fixtures batched_tree_transactions: 10 batch appends and 5 batch nullifies of HLKs…; and
 * batched_address_transactions: 50 queued addresses and 5 address appends of EzKE…) indexed through the real pipeline.
 *
 * The cluster's tree accounts are the genesis accounts the Light CLI ships for these layouts (EzKE… is that very
 * address tree; a `bmt…` batched state tree stands for HLKs…), brought to the state the recorded chain logged: every
 * batch event the program emitted names its new root, the slot of that root in the root history and the sequence
 * number, so the root history, sequence number and next indexes are written as the program wrote them. They are
 * served by a localnet and read by the detector over JSON-RPC.
 *
 * An undamaged index agrees on both trees' roots and on the address tree's elements; a corrupted V2 state-tree node,
 * address-tree root and address-tree element row are each found and counted in /metrics (and left as they are); an
 * index behind the cluster is a mismatch naming the cluster's root at the indexed seq; one ahead is skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { registry } from '../../src/core/metrics.js';
import { base58ToBytes, bytesToBase58 } from '../../src/core/encoding.js';
import { createDriftDetector, type DriftDetector } from '../../src/ingest/drift.js';
import type { Ingester } from '../../src/ingest/pipeline.js';
import { parseLightTransaction, treeLookupFrom } from '../../src/parsers/light/index.js';
import type { LightBatchEvent } from '../../src/parsers/light/types.js';
import { ACCOUNT_COMPRESSION_PROGRAM } from '../../src/parsers/light-trees/index.js';
import { initialAddressTreeRoot, initPoseidon, zeroHash } from '../../src/proofs/light/index.js';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { createRpcClient, type RpcClient } from '../../src/sources/rpc-client.js';
import { advanceCheckpoint } from '../../src/store/chain.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { inputFile, loadPhotonCases } from '../zk/harness.js';
import { blocksOf, replayInputs } from '../zk/replay.js';
import { TREES } from '../zk/seed.js';

const logger = pino({ level: 'silent' });
const STATE = 'HLKs5NJ8FXkJg8BrzJt56adFYYuwg5etzDtBbQYTsixu';
const ADDRESS = 'EzKE84aVTkCUhDHLELqyJaq1Y7UVVmqxXqZjVHwHY3rK';
const KINDS = ['zk_batched_tree_root', 'zk_address_tree_root', 'zk_address_element', 'zk_account_hash', 'zk_queue_next_index'];

const cases = loadPhotonCases().assertionCases;
const inputsOf = (id: string) => cases.find((x) => x.id === id)!.inputs.map((i) => ({ file: inputFile(i)!, kind: i.kind }));
const pkg = dirname(createRequire(import.meta.url).resolve('@lightprotocol/zk-compression-cli/package.json'));
const genesis = (file: string) => new Uint8Array(Buffer.from((JSON.parse(readFileSync(join(pkg, 'accounts', file), 'utf8')) as { account: { data: [string] } }).account.data[0], 'base64'));

/**
 * The batch events the recorded transactions logged, per tree, in seq order; and per tree the elements its own queue
 * received (the highest input-queue / address-queue index the transactions logged, + 1).
 */
async function recorded(ids: string[]): Promise<{ events: Map<string, LightBatchEvent[]>; queued: Map<string, number> }> {
  const trees = treeLookupFrom(TREES.trees.map((t) => ({ tree: t.tree, queue: t.queue, treeType: t.treeTypeCode as 1 | 2 | 3 | 4 })));
  const events = new Map<string, LightBatchEvent[]>();
  const queued = new Map<string, number>();
  const queue = (tree: string, index: number | null) => void (index !== null && queued.set(tree, Math.max(queued.get(tree) ?? 0, index + 1)));
  for (const { file, kind } of ids.flatMap(inputsOf)) {
    for (const b of await blocksOf(file, kind)) for (const tx of b.transactions) {
      const u = parseLightTransaction(tx, { trees });
      for (const e of u.batchEvents) (events.get(e.tree) ?? events.set(e.tree, []).get(e.tree)!).push(e);
      for (const n of u.nullifierQueue) queue(n.tree, n.nullifierQueueIndex);
      for (const a of u.batchNewAddresses) queue(a.tree, a.queueIndex);
    }
  }
  for (const evs of events.values()) evs.sort((a, b) => a.sequenceNumber - b.sequenceNumber);
  return { events, queued };
}

/**
 * A genesis batched tree account after `events`, as the program leaves it: sequence number, next index (appends and
 * address appends) or nullifier next index (nullifies), each new root at its root-history slot (the history is
 * located by the fresh tree's root, its only entry), and its queue's next index (`queued` elements received).
 */
function treeAfter(template: Uint8Array, initialRoot: Uint8Array, events: LightBatchEvent[], queued: number): Uint8Array {
  const data = new Uint8Array(template);
  const view = new DataView(data.buffer);
  const rootsAt = Buffer.from(data).indexOf(Buffer.from(initialRoot));
  expect(rootsAt).toBeGreaterThan(0);
  const last = events[events.length - 1];
  view.setBigUint64(232, BigInt(last.sequenceNumber), true);
  view.setBigUint64(312, BigInt(queued), true);
  for (const e of events) {
    if (e.kind === 'batchNullify') view.setBigUint64(544, BigInt(e.newNextIndex), true);
    else view.setBigUint64(240, BigInt(e.newNextIndex), true);
    data.set(base58ToBytes(e.newRoot), rootsAt + 32 * e.rootIndex);
  }
  view.setBigUint64(rootsAt - 24, BigInt(last.rootIndex + 1), true);
  return data;
}

let t: TestDb;
let net: Localnet;
let client: RpcClient;
let ingester: Ingester;
let detector: DriftDetector;
let events: Map<string, LightBatchEvent[]>;
let queued: Map<string, number>;

beforeAll(async () => {
  await initPoseidon();
  t = await createTestDb();
  await replayInputs(t.db, inputsOf('batched_tree_transactions'), 'separate');
  ingester = await replayInputs(t.db, inputsOf('batched_address_transactions'), 'separate');
  expect(ingester.zk.stats.treeProblems).toBe(0);
  ({ events, queued } = await recorded(['batched_tree_transactions', 'batched_address_transactions']));
  expect([events.get(STATE)!.length, events.get(ADDRESS)!.length]).toEqual([15, 5]);
  expect([queued.get(STATE), queued.get(ADDRESS)]).toEqual([50, 50]);
  const lamports = 1_000_000_000n;
  net = await createLocalnet({
    slotMs: 0,
    accounts: [
      { address: STATE, lamports, owner: ACCOUNT_COMPRESSION_PROGRAM, data: treeAfter(genesis('batch_state_merkle_tree_bmt1LryLZUMmF7ZtqESaw7wifBXLfXHQYoE4GAmrahU.json'), zeroHash(32), events.get(STATE)!, queued.get(STATE)!) },
      { address: ADDRESS, lamports, owner: ACCOUNT_COMPRESSION_PROGRAM, data: treeAfter(genesis(`batch_address_merkle_tree_${ADDRESS}.json`), initialAddressTreeRoot('AddressV2'), events.get(ADDRESS)!, queued.get(ADDRESS)!) },
    ],
  });
  net.chain.produceSlot();
  // The recorded transactions were indexed at slot 0; the index's checkpoint is the cluster's slot (the detector reads
  // with it as minContextSlot, then waits for the index to reach the slot it read at).
  await advanceCheckpoint(t.db, net.chain.slot);
  client = createRpcClient({ url: net.url, maxRetries: 2 });
  detector = createDriftDetector({ db: t.db, client, ingester, commitment: 'confirmed', sample: 10_000, treeSample: 100, startAt: () => '1', logger });
}, 180_000);

afterAll(async () => {
  await client?.close();
  await net?.close();
  await t?.drop();
});

const metric = async (name: string, kind: string) =>
  (await registry.getSingleMetric(name)!.get()).values.find((v) => v.labels.kind === kind)?.value ?? 0;
const counts = async (name: string) => Object.fromEntries(await Promise.all(KINDS.map(async (k) => [k, await metric(name, k)] as const)));
const zk = (r: Awaited<ReturnType<DriftDetector['runOnce']>>) => r.mismatches.filter((m) => KINDS.includes(m.kind));
const treeKey = (tree: string) => Buffer.from(base58ToBytes(tree));
const root = async (tree: string) => (await t.db.query<{ hash: Buffer; seq: string }>('SELECT hash, seq::text AS seq FROM zk_state_nodes WHERE tree = $1 AND node_idx = 1', [treeKey(tree)])).rows[0];

describe('drift detector: ZK Compression V2 batched state trees and address trees', () => {
  it('an undamaged index agrees with the cluster on the V2 state tree, the V2 address tree and its elements', async () => {
    const text = await registry.metrics();
    for (const k of KINDS) for (const name of ['solgate_drift_checked_total', 'solgate_drift_mismatches_total']) expect(text).toContain(`${name}{kind="${k}"}`);
    expect(Number((await root(STATE)).seq)).toBe(15);
    expect(Number((await root(ADDRESS)).seq)).toBe(5);
    const before = await counts('solgate_drift_checked_total');
    const r = await detector.runOnce();
    expect(r.slot).not.toBeNull();
    expect(zk(r)).toEqual([]);
    const after = await counts('solgate_drift_checked_total');
    expect(after.zk_batched_tree_root - before.zk_batched_tree_root).toBe(1);
    expect(after.zk_address_tree_root - before.zk_address_tree_root).toBe(1);
    // The zeroth element and the 50 addresses appended.
    expect(after.zk_address_element - before.zk_address_element).toBe(51);
    // The state tree's unspent accounts already appended (none of the V1 trees has a cluster account here).
    const { rows: [n] } = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM zk_accounts WHERE tree = $1 AND NOT spent AND NOT in_output_queue', [treeKey(STATE)]);
    expect(n.n).toBeGreaterThan(0);
    expect(after.zk_account_hash - before.zk_account_hash).toBe(n.n);
    // Both trees' own queues: 50 nullifiers and 50 addresses received, as indexed.
    expect(after.zk_queue_next_index - before.zk_queue_next_index).toBe(2);
  }, 60_000);

  it('a corrupted V2 state-tree node, address-tree root and address element row are found, counted and left as they are', async () => {
    const state = await root(STATE);
    const address = await root(ADDRESS);
    const { rows: [el] } = await t.db.query<{ value: Buffer; next_value: Buffer }>('SELECT value, next_value FROM zk_indexed_elements WHERE tree = $1 AND leaf_index = 7', [treeKey(ADDRESS)]);
    const before = await counts('solgate_drift_mismatches_total');
    await t.db.query('UPDATE zk_state_nodes SET hash = $2 WHERE tree = $1 AND node_idx = 1', [treeKey(STATE), Buffer.alloc(32, 7)]);
    await t.db.query('UPDATE zk_state_nodes SET hash = $2 WHERE tree = $1 AND node_idx = 1', [treeKey(ADDRESS), Buffer.alloc(32, 8)]);
    const roots = await detector.runOnce();
    const lastState = events.get(STATE)!.at(-1)!;
    expect(zk(roots).map((m) => [m.kind, m.address, m.action]).sort()).toEqual([
      ['zk_address_tree_root', ADDRESS, 'reported'],
      ['zk_batched_tree_root', STATE, 'reported'],
    ]);
    expect(zk(roots).find((m) => m.address === STATE)).toMatchObject({
      indexed: { root: bytesToBase58(new Uint8Array(32).fill(7)), seq: 15 },
      cluster: { root: lastState.newRoot, seq: 15, rootAtIndexedSeq: lastState.newRoot },
    });
    await t.db.query('UPDATE zk_state_nodes SET hash = $2 WHERE tree = $1 AND node_idx = 1', [treeKey(STATE), state.hash]);
    await t.db.query('UPDATE zk_state_nodes SET hash = $2 WHERE tree = $1 AND node_idx = 1', [treeKey(ADDRESS), address.hash]);

    // An element row whose successor was changed: its hash is no longer its leaf.
    const wrong = Buffer.from(el.next_value);
    wrong[31] ^= 1;
    await t.db.query('UPDATE zk_indexed_elements SET next_value = $2 WHERE tree = $1 AND leaf_index = 7', [treeKey(ADDRESS), wrong]);
    const element = await detector.runOnce();
    expect(zk(element).map((m) => [m.kind, m.address, m.indexed.leafIndex, m.indexed.proofVerifies])).toEqual([
      ['zk_address_element', bytesToBase58(new Uint8Array(el.value)), 7, true],
    ]);
    const after = await counts('solgate_drift_mismatches_total');
    expect(after).toEqual({
      zk_batched_tree_root: before.zk_batched_tree_root + 1, zk_address_tree_root: before.zk_address_tree_root + 1, zk_address_element: before.zk_address_element + 1,
      zk_account_hash: before.zk_account_hash, zk_queue_next_index: before.zk_queue_next_index,
    });
    expect(await registry.metrics()).toMatch(/solgate_drift_mismatches_total\{kind="zk_address_element"\} [1-9]/);
    // Reported, not rewritten.
    expect(Buffer.from((await t.db.query<{ next_value: Buffer }>('SELECT next_value FROM zk_indexed_elements WHERE tree = $1 AND leaf_index = 7', [treeKey(ADDRESS)])).rows[0].next_value)).toEqual(wrong);
    await t.db.query('UPDATE zk_indexed_elements SET next_value = $2 WHERE tree = $1 AND leaf_index = 7', [treeKey(ADDRESS), el.next_value]);

    // A V2 leaf node below the (intact) root: the account at that leaf no longer proves.
    const { rows: [acc] } = await t.db.query<{ hash: Buffer; leaf: string }>(
      'SELECT hash, leaf_index::text AS leaf FROM zk_accounts WHERE tree = $1 AND NOT spent AND NOT in_output_queue ORDER BY leaf_index LIMIT 1', [treeKey(STATE)],
    );
    const node = 2 ** 32 + Number(acc.leaf);
    await t.db.query('UPDATE zk_state_nodes SET hash = $3 WHERE tree = $1 AND node_idx = $2', [treeKey(STATE), node, Buffer.alloc(32, 9)]);
    const leaf = zk(await detector.runOnce());
    const mine = leaf.find((m) => m.address === bytesToBase58(new Uint8Array(acc.hash)))!;
    expect(mine).toMatchObject({ kind: 'zk_account_hash', action: 'reported', indexed: { tree: STATE, leafIndex: Number(acc.leaf), proofVerifies: false } });
    // Its sibling leaf's account (if unspent and appended) no longer proves either: the leaf is its proof's first node.
    for (const m of leaf) expect([m.kind, [Number(acc.leaf), Number(acc.leaf) ^ 1].includes(m.indexed.leafIndex as number)]).toEqual(['zk_account_hash', true]);
    expect(await metric('solgate_drift_mismatches_total', 'zk_account_hash')).toBe(after.zk_account_hash + leaf.length);
    await t.db.query('UPDATE zk_state_nodes SET hash = $3 WHERE tree = $1 AND node_idx = $2', [treeKey(STATE), node, acc.hash]);
    expect(zk(await detector.runOnce())).toEqual([]);
  }, 60_000);

  it('queue inserts the index lost (a spend\'s input-queue entry, the last address append) are found and counted', async () => {
    const before = await metric('solgate_drift_mismatches_total', 'zk_queue_next_index');
    const { rows: [spend] } = await t.db.query<{ hash: Buffer }>(
      'SELECT hash FROM zk_accounts WHERE tree = $1 AND nullifier_queue_index = 49', [treeKey(STATE)],
    );
    await t.db.query('UPDATE zk_accounts SET nullifier_queue_index = NULL WHERE tree = $1 AND hash = $2', [treeKey(STATE), spend.hash]);
    const { rows: [append] } = await t.db.query<{ seq: string }>('SELECT max(seq)::text AS seq FROM zk_batch_events WHERE tree = $1', [treeKey(ADDRESS)]);
    const { rows: [row] } = await t.db.query<Record<string, unknown>>('DELETE FROM zk_batch_events WHERE tree = $1 AND seq = $2 RETURNING *', [treeKey(ADDRESS), append.seq]);
    const r = await detector.runOnce();
    expect(zk(r).map((m) => [m.kind, m.address, m.indexed, m.cluster]).sort()).toEqual([
      ['zk_queue_next_index', ADDRESS, { queue: 'address', nextIndex: 40 }, { nextIndex: 50 }],
      ['zk_queue_next_index', STATE, { queue: 'input', nextIndex: 49 }, { nextIndex: 50 }],
    ]);
    expect(await metric('solgate_drift_mismatches_total', 'zk_queue_next_index')).toBe(before + 2);
    await t.db.query('UPDATE zk_accounts SET nullifier_queue_index = 49 WHERE tree = $1 AND hash = $2', [treeKey(STATE), spend.hash]);
    const cols = Object.keys(row);
    await t.db.query(`INSERT INTO zk_batch_events (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})`, cols.map((c) => row[c]));
    expect(zk(await detector.runOnce())).toEqual([]);
  }, 60_000);

  it('an index behind the cluster is a mismatch naming the cluster\'s root at the indexed seq; one ahead is skipped', async () => {
    const state = await root(STATE);
    const earlier = events.get(STATE)!.find((e) => e.sequenceNumber === 12)!;
    await t.db.query('UPDATE zk_state_nodes SET hash = $2, seq = 12 WHERE tree = $1 AND node_idx = 1', [treeKey(STATE), Buffer.from(base58ToBytes(earlier.newRoot))]);
    const behind = await detector.runOnce();
    expect(zk(behind)).toHaveLength(1);
    expect(zk(behind)[0]).toMatchObject({ kind: 'zk_batched_tree_root', indexed: { root: earlier.newRoot, seq: 12 }, cluster: { seq: 15, rootAtIndexedSeq: earlier.newRoot } });
    await t.db.query('UPDATE zk_state_nodes SET hash = $2, seq = 16 WHERE tree = $1 AND node_idx = 1', [treeKey(STATE), Buffer.alloc(32, 5)]);
    const ahead = await detector.runOnce();
    expect(zk(ahead)).toEqual([]);
    expect(ahead.skipped).toBeGreaterThanOrEqual(1);
    await t.db.query('UPDATE zk_state_nodes SET hash = $2, seq = $3 WHERE tree = $1 AND node_idx = 1', [treeKey(STATE), state.hash, state.seq]);
    expect(zk(await detector.runOnce())).toEqual([]);
  }, 60_000);
});
