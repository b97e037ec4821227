/**
 * The byte-level fast paths of the System, SPL Token and Token-2022 parsers (hottest instructions decoded without
 * the Codama clients) must give exactly the events the client path gives: same layouts, same account order, same
 * values at the u64 edges, and the client's `parse.failed` for truncated data, extra bytes or missing accounts.
 */
import { describe, expect, it } from 'vitest';
import { bytesToBase58 } from '../../src/core/encoding.js';
import { SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../../src/core/programs.js';
import type { TracedInstruction } from '../../src/parsers/events.js';
import { parseSystemIx, parseSystemIxWithClient } from '../../src/parsers/system/index.js';
import { parseTokenIx, parseTokenIxWithClient } from '../../src/parsers/spl-token/index.js';
import { fastTokenEvents } from '../../src/parsers/spl-token/base.js';
import { parseToken2022Ix, parseToken2022IxWithClient } from '../../src/parsers/token-2022/index.js';

let seed = 7;
const rnd = () => ((seed = (seed * 1_103_515_245 + 12_345) >>> 0) / 2 ** 32);
const randomBytes = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(rnd() * 256));
const key = () => bytesToBase58(randomBytes(32));
const u64le = (v: bigint) => {
  const out = new Uint8Array(8);
  for (let i = 0; i < 8; i++) out[i] = Number((v >> BigInt(8 * i)) & 0xffn);
  return out;
};
const EDGE_AMOUNTS = [0n, 1n, 255n, 256n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 53n + 1n, 2n ** 63n, 2n ** 64n - 1n];
const amounts = () => [...EDGE_AMOUNTS, ...Array.from({ length: 20 }, () => BigInt(`0x${Buffer.from(randomBytes(8)).toString('hex')}`))];

function ix(programId: string, data: Uint8Array, accounts: number): TracedInstruction {
  return { path: { outer: 1, inner: 2 }, programId, accounts: Array.from({ length: accounts }, key), data };
}

/** Variants around a well-formed instruction: as is, with extra signer accounts, fewer accounts, truncated, extended. */
function variants(programId: string, data: Uint8Array, accounts: number): TracedInstruction[] {
  return [
    ix(programId, data, accounts),
    ix(programId, data, accounts + 2),
    ix(programId, data, accounts - 1),
    ix(programId, data, 0),
    ix(programId, data.subarray(0, data.length - 1), accounts),
    ix(programId, Uint8Array.from([...data, 0]), accounts),
  ];
}

const cases: [string, (ix: TracedInstruction) => unknown, (ix: TracedInstruction) => unknown, string][] = [
  ['spl-token', parseTokenIx, parseTokenIxWithClient, TOKEN_PROGRAM],
  ['token-2022', parseToken2022Ix, parseToken2022IxWithClient, TOKEN_2022_PROGRAM],
];

describe.each(cases)('%s fast path', (_name, fast, client, program) => {
  const same = (i: TracedInstruction) => expect(fast(i)).toEqual(client(i));

  it('transfer (3) and transferChecked (12) match the client for every amount and shape', () => {
    for (const a of amounts()) {
      for (const v of variants(program, Uint8Array.from([3, ...u64le(a)]), 3)) same(v);
      for (const v of variants(program, Uint8Array.from([12, ...u64le(a), Number(a % 256n)]), 4)) same(v);
    }
  });

  it('initializeAccount3 (18), getAccountDataSize (21) and initializeImmutableOwner (22) match the client', () => {
    for (let k = 0; k < 20; k++) for (const v of variants(program, Uint8Array.from([18, ...randomBytes(32)]), 2)) same(v);
    for (const v of variants(program, Uint8Array.from([21]), 1)) same(v);
    for (const v of variants(program, Uint8Array.from([22]), 1)) same(v);
    same(ix(program, new Uint8Array(0), 3));
  });

  it('getAccountDataSize with extension types (21), mintTo (7), burn (8) and closeAccount (9) match the client', () => {
    for (const types of [[7, 0], [7], [7, 0, 9, 0], [1, 0, 2, 0, 3]]) for (const v of variants(program, Uint8Array.from([21, ...types]), 1)) same(v);
    for (const a of amounts()) {
      for (const v of variants(program, Uint8Array.from([7, ...u64le(a)]), 3)) same(v);
      for (const v of variants(program, Uint8Array.from([8, ...u64le(a)]), 3)) same(v);
    }
    for (const v of variants(program, Uint8Array.from([9]), 3)) same(v);
    // Well-formed ones take the fast path (extension types after tag 21 only for SPL Token).
    const spl = program === TOKEN_PROGRAM;
    for (const [data, n] of [[[7, ...u64le(5n)], 3], [[8, ...u64le(5n)], 3], [[9], 3], [[21], 1]] as const) {
      expect(fastTokenEvents(ix(program, Uint8Array.from(data), n), spl)).not.toBeNull();
    }
    expect(fastTokenEvents(ix(program, Uint8Array.from([21, 7, 0]), 1), spl) === null).toBe(!spl);
  });
});

describe('system fast path', () => {
  const same = (i: TracedInstruction) => expect(parseSystemIx(i)).toEqual(parseSystemIxWithClient(i));

  it('transferSol (2) and createAccount (0) match the client for every amount and shape', () => {
    for (const a of amounts()) {
      for (const v of variants(SYSTEM_PROGRAM, Uint8Array.from([2, 0, 0, 0, ...u64le(a)]), 2)) same(v);
      const create = Uint8Array.from([0, 0, 0, 0, ...u64le(a), ...u64le(a >> 3n), ...randomBytes(32)]);
      for (const v of variants(SYSTEM_PROGRAM, create, 2)) same(v);
    }
    // Discriminators whose low byte matches but whose u32 does not.
    same(ix(SYSTEM_PROGRAM, Uint8Array.from([2, 0, 0, 1, ...u64le(5n)]), 2));
    same(ix(SYSTEM_PROGRAM, Uint8Array.from([0, 1, 0, 0, ...randomBytes(48)]), 2));
  });
});
