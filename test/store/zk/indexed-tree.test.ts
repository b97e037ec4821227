/**
 * Low-element lookup (largest stored value strictly below x, per tree) at its boundaries, and the seq guard of
 * indexed elements and state nodes. Values are synthetic 32-byte big-endian numbers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { bytesToBase58 } from '../../../src/core/encoding.js';
import { emptyZkWrite, type ZkIndexedElementRow } from '../../../src/store/zk/types.js';
import { writeZk } from '../../../src/store/zk/write.js';
import { getIndexedElements, getLowElements } from '../../../src/store/zk/indexed-tree.js';
import { getStateNodes } from '../../../src/store/zk/state-tree.js';
import { synth } from './scenario.js';

let t: TestDb;
/** The 32-byte big-endian encoding of n, in base58. */
const v = (n: bigint): string => {
  const b = new Uint8Array(32);
  for (let i = 31, x = n; i >= 0; i--, x >>= 8n) b[i] = Number(x & 0xffn);
  return bytesToBase58(b);
};
const TOP = (1n << 248n) - 1n; // 0x00ff…ff
const MAX = (1n << 256n) - 1n; // 0xff…ff
const T = synth('lowtree:t');
const U = synth('lowtree:u');
const E = synth('lowtree:empty');

// tree T: 0 → 5 → 10 → 2^200 → TOP;  tree U: 0 → 7 → TOP (same byte values in another tree must not leak)
const chain = (tree: string, values: bigint[], seq: number): ZkIndexedElementRow[] =>
  values.map((value, i) => ({ tree, leafIndex: i, value: v(value), nextIndex: (i + 1) % values.length, nextValue: v(values[(i + 1) % values.length]), seq }));
const T_VALUES = [0n, 5n, 10n, 1n << 200n, TOP];
const U_VALUES = [0n, 7n, TOP];

beforeAll(async () => {
  t = await createTestDb();
  // written in reverse so the stored order is not the insertion order
  await t.db.tx((q) => writeZk(q, { ...emptyZkWrite(), indexedElements: [...chain(T, T_VALUES, 3), ...chain(U, U_VALUES, 3)].reverse() }));
});
afterAll(async () => t?.drop());

describe('low element: largest value strictly below x in the same tree', () => {
  const cases: [string, string, bigint, bigint | null][] = [
    ['x = 0: nothing below the zeroth element', T, 0n, null],
    ['x = 1', T, 1n, 0n],
    ['x equal to a stored value: the one below it (strict)', T, 5n, 0n],
    ['x just above a stored value', T, 6n, 5n],
    ['x = 10 (stored)', T, 10n, 5n],
    ['x = 11', T, 11n, 10n],
    ['x just below a large value', T, (1n << 200n) - 1n, 10n],
    ['x just above a large value', T, (1n << 200n) + 1n, 1n << 200n],
    ['x = top (stored)', T, TOP, 1n << 200n],
    ['x above top (first byte set)', T, TOP + 1n, TOP],
    ['x = 2^256 − 1', T, MAX, TOP],
    ['other tree: its own elements', U, 6n, 0n],
    ['other tree: 8', U, 8n, 7n],
    ['empty tree', E, 12345n, null],
  ];
  it.each(cases)('%s', async (_name, tree, x, want) => {
    const [low] = await getLowElements(t.db, [{ tree, value: v(x) }]);
    expect(low === null ? null : low.value).toBe(want === null ? null : v(want));
    if (low) {
      const values = tree === T ? T_VALUES : U_VALUES;
      const i = values.indexOf(want!);
      expect(low).toEqual({ tree, leafIndex: i, value: v(want!), nextIndex: (i + 1) % values.length, nextValue: v(values[(i + 1) % values.length]), seq: 3 });
    }
  });

  it('many lookups in one query stay aligned with the input', async () => {
    const got = await getLowElements(t.db, cases.map(([, tree, x]) => ({ tree, value: v(x) })));
    expect(got.map((e) => e?.value ?? null)).toEqual(cases.map(([, , , want]) => (want === null ? null : v(want))));
  });
});

describe('seq guards', () => {
  it('an indexed element is replaced by an equal or higher seq only', async () => {
    const base = chain(T, T_VALUES, 3)[1];
    await t.db.tx((q) => writeZk(q, { ...emptyZkWrite(), indexedElements: [{ ...base, nextIndex: 99, seq: 2 }] }));
    expect((await getIndexedElements(t.db, T, [1])).get(1)?.nextIndex).toBe(2);
    await t.db.tx((q) => writeZk(q, { ...emptyZkWrite(), indexedElements: [{ ...base, nextIndex: 42, seq: 3 }] }));
    expect((await getIndexedElements(t.db, T, [1])).get(1)?.nextIndex).toBe(42);
    // within one batch the highest seq wins whatever the order
    await t.db.tx((q) => writeZk(q, { ...emptyZkWrite(), indexedElements: [{ ...base, nextIndex: 2, seq: 9 }, { ...base, nextIndex: 77, seq: 4 }] }));
    expect((await getIndexedElements(t.db, T, [1])).get(1)).toMatchObject({ nextIndex: 2, seq: 9 });
  });

  it('a state node is replaced by an equal or higher seq only; a stored null seq is always replaced', async () => {
    const tree = synth('nodes:tree');
    const n = (hash: string, seq: number | null) => ({ tree, nodeIdx: 1, leafIdx: null, level: 26, hash, seq });
    const write = (rows: ReturnType<typeof n>[]) => t.db.tx((q) => writeZk(q, { ...emptyZkWrite(), stateNodes: rows }));
    await write([n(synth('h:null'), null)]);
    await write([n(synth('h:5'), 5)]);
    await write([n(synth('h:4'), 4)]);
    expect((await getStateNodes(t.db, tree, [1])).get(1)).toMatchObject({ hash: synth('h:5'), seq: 5 });
    await write([n(synth('h:5b'), 5)]);
    expect((await getStateNodes(t.db, tree, [1])).get(1)?.hash).toBe(synth('h:5b'));
    await write([n(synth('h:none'), null)]);
    expect((await getStateNodes(t.db, tree, [1])).get(1)?.hash).toBe(synth('h:5b'));
  });
});
