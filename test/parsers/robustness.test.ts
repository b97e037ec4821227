/**
 * Malformed input never throws: truncated, empty and unknown instruction data of known programs become one
 * `parse.failed`; walker index errors are skipped or reported; failed transactions yield nothing.
 * The starting material is real: instructions recorded in the DAS and photon fixtures.
 */
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MEMO_PROGRAM, SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../../src/core/programs.js';
import { walkTransaction } from '../../src/parsers/walk.js';
import { guarded } from '../../src/parsers/common.js';
import type { TracedInstruction } from '../../src/parsers/events.js';
import { parseInstruction, parseTransaction } from '../../src/parsers/registry.js';
import { FIXTURES, fromGeyserFixture, fromRpcFixture, type GeyserTxFixture, loadFixtures, type RpcTxFixture } from './helpers.js';

const decompress = fromGeyserFixture(
  JSON.parse(
    readFileSync(
      join(FIXTURES, 'das/decoded/transactions/asset_decompress/3Ct9n9hv5PWEYbsrgDdUDqegzsnX2n5jYRxkq5YafFAueup8mTYmN4nHhNCaEwVyVAVqNssr4fizdg9wRavT7ydE.json'),
      'utf8',
    ),
  ) as GeyserTxFixture,
);
/** Every recorded System / Token instruction from the fixtures. */
const realIxs: TracedInstruction[] = [
  ...loadFixtures<GeyserTxFixture>(join(FIXTURES, 'das/decoded/transactions')).map(({ json }) => fromGeyserFixture(json)),
  ...loadFixtures<RpcTxFixture>(join(FIXTURES, 'photon-transactions')).map(({ json }) => fromRpcFixture(json)),
]
  .flatMap(walkTransaction)
  .filter((ix) => ix.programId === SYSTEM_PROGRAM || ix.programId === TOKEN_PROGRAM);

const onlyFailed = (program: string) => [expect.objectContaining({ kind: 'parse.failed', program, reason: expect.any(String) })];

describe('malformed instruction data', () => {
  it('the fixtures contain real System and Token instructions to mutate', () => {
    expect(realIxs.filter((i) => i.programId === SYSTEM_PROGRAM).length).toBeGreaterThan(100);
    expect(realIxs.filter((i) => i.programId === TOKEN_PROGRAM).length).toBeGreaterThan(5);
  });

  it('every truncation of every real instruction parses without throwing', () => {
    for (const ix of realIxs) {
      for (let n = 0; n < ix.data.length; n++) {
        const events = parseInstruction({ ...ix, data: ix.data.slice(0, n) });
        expect(Array.isArray(events)).toBe(true);
        for (const e of events) expect(e.path).toEqual(ix.path);
      }
    }
  });

  it('truncated amounts and empty data → one parse.failed', () => {
    const walked = walkTransaction(decompress);
    const mintTo = walked.find((w) => w.programId === TOKEN_PROGRAM && w.data[0] === 7)!;
    expect(parseInstruction(mintTo)[0].kind).toBe('token.mintTo');
    expect(parseInstruction({ ...mintTo, data: mintTo.data.slice(0, 5) })).toEqual(onlyFailed(TOKEN_PROGRAM));
    const create = walked.find((w) => w.programId === SYSTEM_PROGRAM)!;
    expect(parseInstruction({ ...create, data: create.data.slice(0, 20) })).toEqual(onlyFailed(SYSTEM_PROGRAM));
    for (const program of [SYSTEM_PROGRAM, TOKEN_PROGRAM, TOKEN_2022_PROGRAM]) {
      expect(parseInstruction({ ...mintTo, programId: program, data: new Uint8Array() })).toEqual(onlyFailed(program));
    }
  });

  it('unknown discriminators of known programs → parse.failed', () => {
    const base = walkTransaction(decompress).find((w) => w.programId === TOKEN_PROGRAM)!;
    const cases: [string, number[]][] = [
      [SYSTEM_PROGRAM, [99, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]],
      [TOKEN_PROGRAM, [25, 0]], // InitializeMintCloseAuthority exists only in Token-2022
      [TOKEN_PROGRAM, [200]],
      [TOKEN_2022_PROGRAM, [26, 9, 0, 0]], // transfer-fee family, unknown sub-instruction
      [TOKEN_2022_PROGRAM, [200, 1, 2, 3, 4, 5, 6, 7]],
    ];
    for (const [program, data] of cases) {
      expect(parseInstruction({ ...base, programId: program, data: Uint8Array.from(data) }), `${program} ${data}`).toEqual(
        onlyFailed(program),
      );
    }
  });

  it('too few accounts → parse.failed', () => {
    const mintTo = walkTransaction(decompress).find((w) => w.programId === TOKEN_PROGRAM && w.data[0] === 7)!;
    expect(parseInstruction({ ...mintTo, accounts: mintTo.accounts.slice(0, 1) })).toEqual(onlyFailed(TOKEN_PROGRAM));
  });

  it('random bytes for every known program never throw (fixed-seed PRNG)', () => {
    let seed = 42;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const accounts = decompress.accountKeys.slice(0, 8);
    for (let i = 0; i < 3000; i++) {
      const data = Uint8Array.from({ length: Math.floor(rnd() * 80) }, () => Math.floor(rnd() * 256));
      // Bias the first byte into the known discriminator ranges half the time.
      if (data.length && rnd() < 0.5) data[0] = Math.floor(rnd() * 47);
      for (const programId of [SYSTEM_PROGRAM, TOKEN_PROGRAM, TOKEN_2022_PROGRAM]) {
        const ix = { path: { outer: 0, inner: null }, programId, accounts: accounts.slice(0, Math.floor(rnd() * 9)), data };
        expect(() => parseInstruction(ix)).not.toThrow();
      }
    }
  });

  it('an exception inside a parser becomes parse.failed', () => {
    const ix = walkTransaction(decompress)[0];
    const events = guarded(ix, () => {
      throw new RangeError('boom');
    });
    expect(events).toEqual([{ kind: 'parse.failed', path: ix.path, program: ix.programId, reason: 'boom' }]);
  });

  it('unknown programs yield nothing', () => {
    const ix = walkTransaction(decompress)[0];
    expect(parseInstruction({ ...ix, programId: MEMO_PROGRAM, data: Uint8Array.from([1, 2, 3]) })).toEqual([]);
  });
});

describe('walker index errors and failed transactions', () => {
  it('out-of-range program index: skipped; out-of-range account index: parse.failed for known programs', () => {
    const n = decompress.accountKeys.length;
    const [outer0, outer1] = decompress.instructions;
    const tx = {
      ...decompress,
      instructions: [
        { ...outer0, programIdIndex: n + 5 },
        outer1,
      ],
      innerInstructions: decompress.innerInstructions.map((g) => ({
        ...g,
        instructions: g.instructions.map((ix, i) => (i === 0 ? { ...ix, accounts: [0, n] } : ix)),
      })),
    };
    const walked = walkTransaction(tx);
    expect(walked.some((w) => w.path.outer === 0)).toBe(false);
    expect(walked[0].path).toEqual({ outer: 1, inner: null });
    const bad = walked.find((w) => w.path.inner === 0)!;
    expect(bad.programId).toBe(SYSTEM_PROGRAM);
    expect(bad.accounts).toEqual([]);
    expect(bad.unresolved).toMatch(/account index/);
    const events = parseTransaction(tx);
    expect(events[0]).toMatchObject({ kind: 'parse.failed', program: SYSTEM_PROGRAM, path: { outer: 1, inner: 0 } });
    // Everything else still parses.
    expect(events.filter((e) => e.kind === 'token.mintTo')).toHaveLength(1);
  });

  it('inner groups are ordered by index; groups naming no outer instruction are dropped', () => {
    const tx = {
      ...decompress,
      innerInstructions: [
        { index: 7, instructions: decompress.innerInstructions[0].instructions.slice(0, 1) },
        ...decompress.innerInstructions,
      ],
    };
    expect(walkTransaction(tx)).toEqual(walkTransaction(decompress));
  });

  it('a failed transaction yields no events', () => {
    const [{ json }] = loadFixtures<RpcTxFixture>(join(FIXTURES, 'photon-transactions/lamport_transfers'));
    const tx = fromRpcFixture(json);
    expect(parseTransaction(tx).length).toBeGreaterThan(0);
    const failed = { ...tx, meta: { ...tx.meta!, err: { InstructionError: [1, { Custom: 1 }] } } };
    expect(parseTransaction(failed)).toEqual([]);
  });
});
