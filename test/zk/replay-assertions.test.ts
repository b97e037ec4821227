/**
 * Photon's assertion-only cases (fixtures cases.json `assertionCases`: the literal expectations of upstream's Rust
 * tests), replayed from the recorded transactions and blocks through the real ingest pipeline and checked over
 * JSON-RPC: queue lengths after each forester batch, accounts by owner with their leaf indexes, roots and sequence
 * numbers against the roots the chain logged, the V2 address queue, block metadata and the indexer slot.
 */
import { describe, expect, it } from 'vitest';
import { base58ToBytes } from '../../src/core/encoding.js';
import { computeLightRoot } from '../../src/proofs/light/index.js';
import { nodeToBase58 } from '../../src/proofs/hash.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { callRpc, inputFile, loadPhotonCases } from './harness.js';
import { replayInputs } from './replay.js';
import { synthField } from './seed.js';

const cases = loadPhotonCases().assertionCases;
const inputsOf = (id: string) => {
  const c = cases.find((x) => x.id === id)!;
  return c.inputs.map((i) => ({ file: inputFile(i)!, kind: i.kind }));
};

async function rpc<T = any>(ta: TestApp, method: string, params: unknown): Promise<T> {
  const r = await callRpc(ta, method, params);
  if (r.error) throw new Error(`${method}: ${r.error.code} ${r.error.message}`);
  return r.result as T;
}

/** Runs `fn` on a fresh gateway. */
async function withApp(fn: (ta: TestApp) => Promise<void>): Promise<void> {
  const ta = await createTestApp();
  try {
    await fn(ta);
  } finally {
    await ta.close();
  }
}

/** A proof item checked against its own root with the Light maths. */
function rootOf(p: { hash: string; leafIndex: number; proof: string[] }): string {
  return nodeToBase58(computeLightRoot(base58ToBytes(p.hash), p.proof.map((s) => base58ToBytes(s)), p.leafIndex));
}

const HLKS = 'HLKs5NJ8FXkJg8BrzJt56adFYYuwg5etzDtBbQYTsixu';
const OQ = '6L7SzhYB3anwEQ9cphpJ1U7Scwj57bx2xueReg7R9cKU';

describe('photon assertion cases, replayed', () => {
  it('batched_tree_transactions: queues after every forester batch, one account per owner at odd leaves, proofs on the logged root', async () => {
    const inputs = inputsOf('batched_tree_transactions');
    expect(inputs).toHaveLength(115);
    await withApp(async (ta) => {
      const db = ta.t.db;
      const ingester = await replayInputs(db, inputs.slice(0, 100), 'separate');
      const queues = async () => {
        const r = await rpc(ta, 'getQueueElements', { tree: HLKS, outputQueue: { limit: 1000 }, inputQueue: { limit: 1000 } });
        return { out: r.stateQueue.outputQueue.accountHashes.length as number, in: r.stateQueue.inputQueue.accountHashes.length as number };
      };
      expect(await queues()).toEqual({ out: 100, in: 50 });
      // Still-open accounts of the queue are proven by index against the zero root.
      const open = (await rpc(ta, 'getQueueElements', { tree: HLKS, outputQueue: { limit: 1000 } })).stateQueue.outputQueue.accountHashes as string[];
      const spent = new Set((await rpc(ta, 'getQueueElements', { tree: HLKS, inputQueue: { limit: 1000 } })).stateQueue.inputQueue.accountHashes as string[]);
      const four = open.filter((h) => !spent.has(h)).slice(0, 4);
      const vp = await rpc(ta, 'getValidityProofV2', { hashes: four, newAddressesWithTrees: [] });
      for (const a of vp.value.accounts) {
        expect(a.rootIndex.proveByIndex).toBe(true);
        expect(a.root).toBe('11111111111111111111111111111111');
        expect(a.merkleContext.tree).toBe(HLKS);
        expect(a.merkleContext.queue).toBe(OQ);
      }
      // The 15 forester transactions, one at a time: appends take 10 from the output queue, nullifies 10 from the input queue.
      let last = await queues();
      for (const input of inputs.slice(100)) {
        const before = last;
        const ing = await replayInputs(db, [input], 'separate');
        expect(ing.zk.stats.treeProblems).toBe(0);
        last = await queues();
        const appended = last.out === before.out - 10 && last.in === before.in;
        const nullified = last.in === before.in - 10 && last.out === before.out;
        expect(appended || nullified, JSON.stringify({ before, last })).toBe(true);
      }
      expect(last).toEqual({ out: 0, in: 0 });
      expect(ingester.zk.stats.treeProblems).toBe(0);
      // Everything again: nothing changes. 50 owners keep one account each, at leaf 1, 3, 5, … in order of appearance.
      await replayInputs(db, inputs, 'merged');
      // Owners of the unspent accounts, in order of their first leaf (= order of first appearance).
      const { rows } = await db.query<{ owner: Buffer }>(
        `SELECT owner FROM zk_accounts WHERE tree = $1 AND NOT spent GROUP BY owner ORDER BY min(leaf_index)`,
        [Buffer.from(base58ToBytes(HLKS))],
      );
      const owners = rows.map((r) => nodeToBase58(new Uint8Array(r.owner)));
      expect(owners).toHaveLength(50);
      const root = (await rpc(ta, 'getMultipleCompressedAccountProofsV2', [open[1]])).value[0];
      expect(root.rootSeq).toBe(15);
      for (const [k, owner] of owners.entries()) {
        const items = (await rpc(ta, 'getCompressedAccountsByOwnerV2', { owner })).value.items;
        expect(items.map((a: any) => [a.leafIndex, Number(a.lamports)])).toEqual([[2 * k + 1, 1_000_000]]);
        if (k % 10 === 0) {
          const [p] = (await rpc(ta, 'getMultipleCompressedAccountProofsV2', [items[0].hash])).value;
          expect(p.proveByIndex).toBe(false);
          expect(rootOf(p)).toBe(p.root);
          expect(p.root).toBe(root.root);
        }
      }
    });
  });

  it('four_cpi_events: four outputs of one instruction, lamports 0, leaf indexes 0..3', async () => {
    await withApp(async (ta) => {
      await replayInputs(ta.t.db, inputsOf('four_cpi_events'), 'merged');
      const items = (await rpc(ta, 'getCompressedAccountsByOwnerV2', { owner: 'FNt7byTHev1k5x2cXZLBr8TdWiC3zoP5vcnZR4P682Uy' })).value.items;
      expect(items.map((a: any) => [Number(a.lamports), a.leafIndex])).toEqual([0, 1, 2, 3].map((i) => [0, i]));
    });
  });

  it('batched_address_transactions: 50 queued addresses in creation order, then appended; proofs on the logged root', async () => {
    const inputs = inputsOf('batched_address_transactions');
    const TREE = 'EzKE84aVTkCUhDHLELqyJaq1Y7UVVmqxXqZjVHwHY3rK';
    await withApp(async (ta) => {
      await replayInputs(ta.t.db, inputs.slice(0, 50), 'separate');
      const q = (await rpc(ta, 'getQueueElements', { tree: TREE, addressQueue: { limit: 100 } })).addressQueue;
      expect(q.addresses).toHaveLength(50);
      expect(q.queueIndices).toEqual([...Array(50).keys()]);
      const ing = await replayInputs(ta.t.db, inputs.slice(50), 'separate');
      expect(ing.zk.stats.treeProblems).toBe(0);
      expect((await rpc(ta, 'getQueueElements', { tree: TREE, addressQueue: { limit: 100 } })).addressQueue.addresses).toEqual([]);
      // An appended address now exists; a new one gets a proof whose root is the tree's logged root.
      const exists = await callRpc(ta, 'getMultipleNewAddressProofsV2', [{ address: q.addresses[0], tree: TREE }]);
      expect(exists.error?.message).toContain('already exists');
      const [p] = (await rpc(ta, 'getMultipleNewAddressProofsV2', [{ address: synthField('new address'), tree: TREE }])).value;
      const { rows } = await ta.t.db.query<{ seq: number; root: Buffer }>(
        `SELECT n.seq, n.hash AS root FROM zk_state_nodes n WHERE n.tree = $1 AND n.node_idx = 1`,
        [Buffer.from(base58ToBytes(TREE))],
      );
      expect(p.root).toBe(nodeToBase58(new Uint8Array(rows[0].root)));
      expect(p.rootSeq).toBe(rows[0].seq);
    });
  });

  it('batch_append_nullify: the indexer root and seq after the last batch are the on-chain root history entry 4', async () => {
    const ROOTS = ['4C4hXkTeb81GhLj8GBTwDxRxvBy2xZxVFh4YfthKA6XJ', '433kYLWvdMNY8SVGamZakDQFNZRu569gR37RxrM4Q4Vk', '3SgZfe7CoZEfYP1YbEyqKpK3qkoTypobm2oXsqsNLQKL', '4D1x7SoCWSu6KTTDwyKsphwNCb4er7wr5Rw3qAv2o1wg', 'et9ihtqjKu8uszGmNDQA9ErNzT8tbyVzmN1833fGrUF'];
    await withApp(async (ta) => {
      const ing = await replayInputs(ta.t.db, inputsOf('batch_append_nullify'), 'separate');
      expect(ing.zk.stats.treeProblems).toBe(0);
      const { rows } = await ta.t.db.query<{ hash: Buffer }>(
        `SELECT a.hash FROM zk_accounts a WHERE a.tree = $1 AND NOT a.in_output_queue AND NOT a.spent ORDER BY a.leaf_index LIMIT 1`,
        [Buffer.from(base58ToBytes(HLKS))],
      );
      const [p] = (await rpc(ta, 'getMultipleCompressedAccountProofsV2', [nodeToBase58(new Uint8Array(rows[0].hash))])).value;
      expect({ root: p.root, rootSeq: p.rootSeq }).toEqual({ root: ROOTS[4], rootSeq: 4 });
      expect(rootOf(p)).toBe(ROOTS[4]);
    });
  });

  it('index_block_metadata: the block row and getIndexerSlot, indexed twice', async () => {
    await withApp(async (ta) => {
      const inputs = inputsOf('index_block_metadata');
      await replayInputs(ta.t.db, inputs, 'separate');
      await replayInputs(ta.t.db, inputs, 'separate');
      const { rows } = await ta.t.db.query('SELECT slot, parent_slot, blockhash, block_height, block_time FROM blocks');
      expect(rows).toEqual([{ slot: 254170887, parent_slot: 254170886, blockhash: '5GG5pzTbH6KgZM54M9XWfBNmBupQuZXdQxoZRRQXHcpM', block_height: 234724352, block_time: 1710441678 }]);
      expect(await rpc(ta, 'getIndexerSlot', [])).toBe(254170887);
    });
  });

  it('transaction_with_tree_rollover_fee: parses and opens at least one account in smt1/smt2', async () => {
    await withApp(async (ta) => {
      const ing = await replayInputs(ta.t.db, inputsOf('transaction_with_tree_rollover_fee'), 'separate');
      expect(ing.zk.stats.parseFailures).toBe(0);
      const sigs = (await rpc(ta, 'getLatestCompressionSignatures', {})).value.items;
      expect(sigs).toHaveLength(1);
      const { rows } = await ta.t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM zk_accounts WHERE owner IS NOT NULL');
      expect(rows[0].n).toBeGreaterThanOrEqual(1);
    });
  });
});
