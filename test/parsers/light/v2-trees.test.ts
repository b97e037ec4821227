/**
 * V2 (batched) trees, in the newer event form (light system program + `insert_into_queues` instruction data, no noop
 * event) and the forester's batch events. Expectations are the literal facts of Photon's assertion-only cases
 * (shared fixtures `photon/cases.json`, from upstream's Rust tests) and the on-chain roots the batch events carry:
 * the batched trees are rebuilt from the parsed outputs, nullifiers and queued addresses with the project's Poseidon
 * trees and must reach every root the chain logged.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { base58ToBytes } from '../../../src/core/encoding.js';
import type { NormalizedTx } from '../../../src/core/model.js';
import {
  parseLightTransaction,
  type LightBatchEvent,
  type LightNullifierQueueEntry,
  type LightOutputAccount,
  type LightStateUpdate,
} from '../../../src/parsers/light/index.js';
import { IndexedMerkleTree, initPoseidon, SparsePoseidonTree } from '../../../src/proofs/light/index.js';
import { b58, folder, nullifierHasher, TREES } from './helpers.js';

beforeAll(() => initPoseidon());

const TREE = 'HLKs5NJ8FXkJg8BrzJt56adFYYuwg5etzDtBbQYTsixu';
const OUTPUT_QUEUE = '6L7SzhYB3anwEQ9cphpJ1U7Scwj57bx2xueReg7R9cKU';
const ADDRESS_TREE = 'EzKE84aVTkCUhDHLELqyJaq1Y7UVVmqxXqZjVHwHY3rK';

const parseAll = (txs: NormalizedTx[]): LightStateUpdate[] => txs.map((tx) => parseLightTransaction(tx, { trees: TREES, nullifier: nullifierHasher }));

/**
 * Replays a batched state tree from parsed updates: a batch append writes the queued outputs of its range at their
 * leaf indexes (a leaf already nullified keeps its nullifier), a batch nullify writes the nullifiers of its input-queue
 * range at their accounts' leaf indexes. Returns each batch event with the root the rebuilt tree has after it.
 */
function replayStateTree(updates: LightStateUpdate[], tree: string): { event: LightBatchEvent; root: string }[] {
  const outputs = new Map<number, LightOutputAccount>();
  const inputs = new Map<number, LightNullifierQueueEntry>();
  const t = new SparsePoseidonTree(32);
  const nullified = new Set<number>();
  const out: { event: LightBatchEvent; root: string }[] = [];
  for (const u of updates) {
    for (const a of u.outputAccounts) if (a.tree === tree) outputs.set(a.leafIndex, a);
    for (const n of u.nullifierQueue) if (n.tree === tree) inputs.set(n.nullifierQueueIndex!, n);
    for (const e of u.batchEvents) {
      if (e.tree !== tree) continue;
      for (let i = e.oldNextIndex; i < e.newNextIndex; i++) {
        if (e.kind === 'batchAppend') {
          if (!nullified.has(i)) t.setLeaf(i, base58ToBytes(outputs.get(i)!.hash));
        } else {
          const n = inputs.get(i)!;
          t.setLeaf(n.leafIndex, base58ToBytes(n.nullifier!));
          nullified.add(n.leafIndex);
        }
      }
      out.push({ event: e, root: b58(t.root()) });
    }
  }
  return out;
}

describe('four_cpi_events (one instruction, four light system CPIs)', () => {
  it('four outputs owned by the test program, lamports 0, leaf indexes 0..3 in the output queue of HLKs…', () => {
    const [u] = parseAll(folder('four_cpi_events'));
    expect(u.outputAccounts.map((a) => [a.owner, a.lamports, a.leafIndex, a.tree, a.queue, a.treeType, a.inOutputQueue, a.seq])).toEqual(
      [0, 1, 2, 3].map((i) => ['FNt7byTHev1k5x2cXZLBr8TdWiC3zoP5vcnZR4P682Uy', 0n, i, TREE, OUTPUT_QUEUE, 3, true, null]),
    );
  });
});

describe('batched_tree_transactions (V2 state tree HLKs…, 115 transactions)', () => {
  let updates: LightStateUpdate[] = [];
  let users: LightStateUpdate[] = [];
  let forester: LightStateUpdate[] = [];
  beforeAll(() => {
    updates = parseAll(folder('batched_tree_transactions'));
    users = updates.slice(0, 100);
    forester = updates.slice(100);
  });

  it('the first 100 transactions open 100 accounts in the output queue and close 50 through the input queue', () => {
    const outs = users.flatMap((u) => u.outputAccounts);
    expect(outs).toHaveLength(100);
    expect(outs.every((a) => a.tree === TREE && a.queue === OUTPUT_QUEUE && a.treeType === 3 && a.inOutputQueue && a.seq === null)).toBe(true);
    expect(outs.map((a) => a.leafIndex).sort((x, y) => x - y)).toEqual([...Array(100).keys()]);
    const ins = users.flatMap((u) => u.nullifierQueue);
    expect(ins).toHaveLength(50);
    expect(users.flatMap((u) => u.inputAccountHashes)).toEqual(ins.map((n) => n.accountHash));
    expect(ins.every((n) => n.tree === TREE && n.nullifier !== null)).toBe(true);
    expect(ins.map((n) => n.nullifierQueueIndex)).toEqual([...Array(50).keys()]);
    // Every consumed account was created earlier in the recording.
    const created = new Set(outs.map((a) => a.hash));
    expect(ins.every((n) => created.has(n.accountHash))).toBe(true);
    expect(forester.every((u) => u.outputAccounts.length === 0 && u.inputAccountHashes.length === 0)).toBe(true);
  });

  it('the last 15 transactions are forester batch events, 10 leaves each: the 10 appends, then the 5 nullifies', () => {
    // cases.json words the order as "append,nullify,append,nullify,…"; the recordings in slot order (the order the
    // manifest lists them in) and the events' own sequence numbers say ten appends, then five nullifies.
    const events = forester.flatMap((u) => u.batchEvents);
    const A = 'batchAppend';
    const N = 'batchNullify';
    expect(forester.map((u) => u.batchEvents.length)).toEqual(Array(15).fill(1));
    expect(events.map((e) => e.kind)).toEqual([...Array(10).fill(A), ...Array(5).fill(N)]);
    expect(events.every((e) => e.tree === TREE && e.zkpBatchSize === 10 && e.newNextIndex - e.oldNextIndex === 10)).toBe(true);
    expect(events.filter((e) => e.kind === A).every((e) => e.outputQueue === OUTPUT_QUEUE)).toBe(true);
    // Sequence numbers count the tree's root updates.
    expect(events.map((e) => e.sequenceNumber)).toEqual(events.map((_, i) => i + 1));
    // All 100 queued outputs were appended and all 50 inputs nullified: both queues end empty.
    expect(events.filter((e) => e.kind === A).reduce((s, e) => s + e.zkpBatchSize, 0)).toBe(100);
    expect(events.filter((e) => e.kind === N).reduce((s, e) => s + e.zkpBatchSize, 0)).toBe(50);
  });

  it('50 owners keep exactly one 1_000_000-lamport account each, at leaf indexes 1, 3, 5, … in order of appearance', () => {
    const spent = new Set(users.flatMap((u) => u.inputAccountHashes));
    const kept = users.flatMap((u) => u.outputAccounts).filter((a) => !spent.has(a.hash));
    expect(kept.every((a) => a.lamports === 1_000_000n)).toBe(true);
    expect(kept.map((a) => a.leafIndex)).toEqual([...Array(50).keys()].map((i) => 2 * i + 1));
    expect(new Set(kept.map((a) => a.owner)).size).toBe(50);
  });

  it('the tree rebuilt from the parsed outputs and nullifiers reaches every root the batch events logged', () => {
    const replay = replayStateTree(updates, TREE);
    expect(replay).toHaveLength(15);
    for (const { event, root } of replay) expect(root, `seq ${event.sequenceNumber}`).toBe(event.newRoot);
  });
});

describe('batch_append_nullify (appends, then a nullify while outputs are still queued)', () => {
  // cases.json `batch_append_nullify`: the on-chain root history of HLKs… (index = tree sequence number) and the
  // batch events upstream's test names.
  const ROOTS = [
    '4C4hXkTeb81GhLj8GBTwDxRxvBy2xZxVFh4YfthKA6XJ',
    '433kYLWvdMNY8SVGamZakDQFNZRu569gR37RxrM4Q4Vk',
    '3SgZfe7CoZEfYP1YbEyqKpK3qkoTypobm2oXsqsNLQKL',
    '4D1x7SoCWSu6KTTDwyKsphwNCb4er7wr5Rw3qAv2o1wg',
    'et9ihtqjKu8uszGmNDQA9ErNzT8tbyVzmN1833fGrUF',
  ];
  const EVENTS: Record<string, [LightBatchEvent['kind'], number, number, number]> = {
    '4BWyAeXyMaobHcrX6UrUn5qwSv9forkNPtdUbKcMcYjmbVK4fYMEkFokbGbLKCSsmB6WTFy1jpCAnPEKjRh1Z5R9': ['batchAppend', 1, 0, 10],
    '3UdMPT7UDWdFh32G3JUNgvL1Jwmb546jhsW5PGV63G1m4dy5ypc6q9JqMamQ59pLRbBRtq8nQKw3s2BZrucviQHG': ['batchAppend', 2, 10, 20],
    '2u8yxJ95DYaHJTYB6D3cF6KCfkhvzFkGraYdri3fnK6xKPeyw8zLpJqstEYdQcu1vZZsPXDMSUidBajgrbpAJRPM': ['batchNullify', 3, 0, 10],
    '2h1vPiv1WvkjfujPyS5vPGEMYMp5DEfBxdFPGo9kStp1neXVPXAarWfKM6nnhcs8c59LKqpGo9aBtkrDUF91nDnP': ['batchAppend', 4, 20, 30],
  };
  let updates: LightStateUpdate[] = [];
  beforeAll(() => {
    updates = parseAll(folder('batch_append_nullify'));
  });

  it('the batch events are the four upstream names, with the on-chain roots of their sequence numbers', () => {
    const events = updates.flatMap((u) => u.batchEvents);
    expect(Object.fromEntries(events.map((e) => [e.signature, [e.kind, e.sequenceNumber, e.oldNextIndex, e.newNextIndex]]))).toEqual(EVENTS);
    for (const e of events) {
      expect(e.tree).toBe(TREE);
      expect(e.newRoot).toBe(ROOTS[e.sequenceNumber]);
      expect(e.rootIndex).toBe(e.sequenceNumber);
    }
  });

  it('the tree rebuilt from the parsed outputs and nullifiers reaches the same roots', () => {
    const replay = replayStateTree(updates, TREE);
    expect(replay.map((r) => r.root)).toEqual(ROOTS.slice(1));
  });
});

describe('batched_address_transactions (V2 address tree EzKE…)', () => {
  const txs = folder('batched_address_transactions');
  let updates: LightStateUpdate[] = [];
  let creations: LightStateUpdate[] = [];
  beforeAll(() => {
    updates = parseAll(txs);
    creations = updates.slice(0, 50);
  });

  it('the first 50 transactions each queue one address in EzKE…, in creation order; each names the tree', () => {
    const queued = creations.flatMap((u) => u.batchNewAddresses);
    expect(creations.every((u) => u.batchNewAddresses.length === 1)).toBe(true);
    expect(queued.every((a) => a.tree === ADDRESS_TREE)).toBe(true);
    expect(queued.map((a) => a.queueIndex)).toEqual([...Array(50).keys()]);
    expect(new Set(queued.map((a) => a.address)).size).toBe(50);
    // A V2 address tree is its own queue.
    expect(creations.flatMap((u) => u.newAddresses)).toEqual(queued.map((a) => ({ address: a.address, tree: a.tree, queue: ADDRESS_TREE, queueIndex: a.queueIndex })));
    txs.slice(0, 50).forEach((tx) => expect(tx.accountKeys.slice(0, tx.staticKeyCount)).toContain(ADDRESS_TREE));
  });

  it('the forester appends them all (address queue empty after) and the rebuilt tree reaches every logged root', () => {
    const queued = creations.flatMap((u) => u.batchNewAddresses);
    const events = updates.slice(50).flatMap((u) => u.batchEvents);
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.kind === 'batchAddressAppend' && e.tree === ADDRESS_TREE)).toBe(true);
    expect(events.reduce((s, e) => s + e.zkpBatchSize, 0)).toBe(queued.length);
    const tree = new IndexedMerkleTree('AddressV2');
    let next = 0;
    for (const e of events) {
      for (let i = 0; i < e.zkpBatchSize; i++) tree.insert(queued[next++].address);
      expect(b58(tree.root()), `seq ${e.sequenceNumber}`).toBe(e.newRoot);
    }
  });
});
