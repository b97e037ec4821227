/**
 * readTreeNodes (src/api/zk/node-cache.ts) against a scripted store: nodes are remembered only when kept, serve only
 * the root they were read at, absent nodes are remembered as absent, and a root that moves between the root read
 * and the node read makes the tree's nodes all read again in one snapshot, with nothing remembered.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { clearNodeCache, NODE_CACHE_SIZE, nodeCacheSize, readTreeNodes } from '../../src/api/zk/node-cache.js';
import type { Queryable } from '../../src/store/db.js';

const TREE = '11111111111111111111111111111111';
const h = (n: number) => Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? n : i === 0 ? 0 : 7));
const bytes = (b: Uint8Array) => [...b];

/** A store of one tree whose contents can be swapped; counts the node indexes each query asked for. */
function fakeStore() {
  let nodes = new Map<number, Uint8Array>();
  const asked: number[][] = [];
  const q: Queryable = {
    query: (async (_sql: string, params: unknown[]) => {
      const idx = String(params[1]).slice(1, -1).split(',').map(Number);
      asked.push(idx);
      const rows = idx.filter((n) => nodes.has(n)).map((n) => ({ t: 1, node_idx: String(n), hash: Buffer.from(nodes.get(n)!), seq: '5' }));
      return { rows };
    }) as unknown as Queryable['query'],
  };
  return { q, asked, set: (m: Map<number, Uint8Array>) => (nodes = m) };
}

beforeEach(() => clearNodeCache());

describe('readTreeNodes', () => {
  it('remembers kept nodes (absent ones too) for their root only', async () => {
    const s = fakeStore();
    s.set(new Map([[1, h(1)], [2, h(2)]]));
    const keys = new Map([[TREE, [1, 2, 3]]]);
    const a = await readTreeNodes(s.q, keys);
    expect([...a.nodes.get(TREE)!.keys()].sort()).toEqual([1, 2]);
    expect(s.asked).toEqual([[1], [1, 2, 3]]);
    expect(nodeCacheSize()).toBe(0); // not kept yet
    a.keep();
    expect(nodeCacheSize()).toBe(2); // 2, and 3 as absent

    const b = await readTreeNodes(s.q, keys);
    expect(s.asked).toHaveLength(3); // only the root was read
    expect(bytes(b.nodes.get(TREE)!.get(2)!.hash)).toEqual(bytes(h(2)));
    expect(b.nodes.get(TREE)!.has(3)).toBe(false);

    // a new root: everything from the store again
    s.set(new Map([[1, h(9)], [2, h(8)], [3, h(7)]]));
    const c = await readTreeNodes(s.q, keys);
    expect(s.asked.slice(3)).toEqual([[1], [1, 2, 3]]);
    expect(bytes(c.nodes.get(TREE)!.get(3)!.hash)).toEqual(bytes(h(7)));
    expect(nodeCacheSize()).toBe(0); // the old root's nodes are gone, the new ones not kept yet
  });

  it('a root that moves between the two reads: the tree read again in one snapshot, nothing remembered', async () => {
    const s = fakeStore();
    s.set(new Map([[1, h(1)], [2, h(2)]]));
    const q: Queryable = {
      query: (async (sql: string, params: unknown[]) => {
        const r = await s.q.query(sql, params);
        if (s.asked.length === 1) s.set(new Map([[1, h(4)], [2, h(5)]])); // a block commits after the root read
        return r;
      }) as unknown as Queryable['query'],
    };
    const r = await readTreeNodes(q, new Map([[TREE, [2]]]));
    expect(s.asked).toEqual([[1], [1, 2], [1, 2]]);
    expect(bytes(r.nodes.get(TREE)!.get(1)!.hash)).toEqual(bytes(h(4)));
    expect(bytes(r.nodes.get(TREE)!.get(2)!.hash)).toEqual(bytes(h(5)));
    r.keep();
    expect(nodeCacheSize()).toBe(0);
  });

  it('a tree without a stored root is read as asked and not remembered', async () => {
    const s = fakeStore();
    const r = await readTreeNodes(s.q, new Map([[TREE, [5, 6]]]));
    expect(r.nodes.get(TREE)!.size).toBe(0);
    r.keep();
    expect(nodeCacheSize()).toBe(0);
  });
});

describe('the bound', () => {
  it('never holds more than NODE_CACHE_SIZE nodes: the largest other tree goes first', async () => {
    const OTHER = '11111111111111111111111111111112';
    const big = Math.floor(NODE_CACHE_SIZE * 0.7);
    const s = fakeStore();
    s.set(new Map([[1, h(1)]]));
    const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
    (await readTreeNodes(s.q, new Map([[TREE, range(2, big)]]))).keep();
    expect(nodeCacheSize()).toBe(big);
    (await readTreeNodes(s.q, new Map([[OTHER, range(2, 1000)]]))).keep();
    expect(nodeCacheSize()).toBe(big + 1000);
    // another big read of OTHER: TREE (the largest other) is dropped
    (await readTreeNodes(s.q, new Map([[OTHER, range(5000, big)]]))).keep();
    expect(nodeCacheSize()).toBe(big + 1000);
    const asked = s.asked.length;
    await readTreeNodes(s.q, new Map([[TREE, [2, 3]]]));
    expect(s.asked.length).toBe(asked + 2); // TREE's nodes come from the store again
  });
});
