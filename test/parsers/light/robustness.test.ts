/**
 * The Light parser never throws: truncated or corrupt Light instruction data and noop events become `parse.failed`
 * entries (or, for noop payloads that are not Light events at all, are skipped as Photon skips them), on mutated
 * copies of real recorded transactions.
 */
import { describe, expect, it } from 'vitest';
import type { CompiledInstruction, NormalizedTx } from '../../../src/core/model.js';
import {
  ACCOUNT_COMPRESSION_PROGRAM,
  LIGHT_SYSTEM_PROGRAM,
  NOOP_PROGRAM,
  parseLightTransaction,
} from '../../../src/parsers/light/index.js';
import { folder, TREES } from './helpers.js';

const clone = (tx: NormalizedTx): NormalizedTx => structuredClone(tx);

/** The `n`-th compiled instruction (outer or inner, in execution order) of `program`. */
function compiled(tx: NormalizedTx, program: string, n = 0): CompiledInstruction {
  const all: CompiledInstruction[] = [];
  tx.instructions.forEach((ix, i) => {
    all.push(ix);
    for (const g of tx.innerInstructions) if (g.index === i) all.push(...g.instructions);
  });
  const found = all.filter((ix) => tx.accountKeys[ix.programIdIndex] === program);
  if (!found[n]) throw new Error(`no instruction ${n} of ${program}`);
  return found[n];
}

const parse = (tx: NormalizedTx) => parseLightTransaction(tx, { trees: TREES });

describe('Light parser robustness', () => {
  const mint = folder('e2e_mint_and_transfer_transactions').find((t) => t.signature.startsWith('64jFxW4x'))!;
  const [fourCpi] = folder('four_cpi_events');
  const batchAppend = folder('batch_append_nullify').find((t) => t.signature.startsWith('4BWyAeXy'))!;

  it('a truncated noop PublicTransactionEvent → parse.failed at every length, never a throw', () => {
    const full = compiled(mint, NOOP_PROGRAM).data;
    for (let len = 0; len < full.length; len++) {
      const tx = clone(mint);
      compiled(tx, NOOP_PROGRAM).data = full.slice(0, len);
      const u = parse(tx);
      expect(u.outputAccounts).toEqual([]);
      expect(u.failures.length, `length ${len}`).toBeGreaterThan(0);
      expect(u.failures[0]).toMatchObject({ kind: 'parse.failed', program: NOOP_PROGRAM });
    }
  });

  it('truncated insert_into_queues or light system instruction data → parse.failed (or no event when too short to be one)', () => {
    for (const program of [ACCOUNT_COMPRESSION_PROGRAM, LIGHT_SYSTEM_PROGRAM]) {
      const full = compiled(fourCpi, program).data;
      for (let len = 0; len < full.length; len++) {
        const tx = clone(fourCpi);
        compiled(tx, program).data = full.slice(0, len);
        const u = parse(tx);
        // the other three CPI events of the instruction are separate patterns
        if (len < 12) {
          // light-event classifies data under 12 bytes as no Light instruction: the pattern is gone, nothing fails
          expect(u.failures, `${program} length ${len}`).toEqual([]);
        } else {
          expect(u.failures.length, `${program} length ${len}`).toBeGreaterThan(0);
          expect(u.failures[0].reason).toMatch(/light transaction event/);
        }
      }
    }
  });

  it('an unknown light system discriminator in a pattern → parse.failed', () => {
    const tx = clone(fourCpi);
    const ix = compiled(tx, LIGHT_SYSTEM_PROGRAM);
    ix.data = Uint8Array.from([9, 9, 9, 9, 9, 9, 9, 9, ...ix.data.subarray(8)]);
    const u = parse(tx);
    expect(u.failures).toHaveLength(1);
    expect(u.failures[0]).toMatchObject({ program: ACCOUNT_COMPRESSION_PROGRAM });
    expect(u.failures[0].reason).toMatch(/not an executing light system instruction/);
  });

  it('a noop payload that is not a MerkleTreeEvent is skipped (as Photon skips it); a truncated batch event too', () => {
    const full = compiled(batchAppend, NOOP_PROGRAM).data;
    expect(parse(batchAppend).batchEvents).toHaveLength(1);
    for (const data of [Uint8Array.of(), Uint8Array.of(9, 1, 2, 3), full.slice(0, full.length - 34), full.slice(0, 40)]) {
      const tx = clone(batchAppend);
      compiled(tx, NOOP_PROGRAM).data = data;
      const u = parse(tx);
      expect(u.batchEvents).toEqual([]);
      expect(u.failures).toEqual([]);
    }
  });

  it('corrupt token data keeps the account, without token data, and reports why', () => {
    const tx = clone(mint);
    const noop = compiled(tx, NOOP_PROGRAM);
    // The token account's state byte (the last 2 bytes of its data are state and the TLV tag): state 7 is invalid.
    const parsed = parse(mint).outputAccounts[0];
    const data = parsed.data!.data;
    const at = Buffer.from(noop.data).indexOf(Buffer.from(data)) + data.length - 2;
    noop.data = Uint8Array.from(noop.data);
    noop.data[at] = 7;
    const u = parse(tx);
    expect(u.outputAccounts).toHaveLength(1);
    expect(u.outputAccounts[0].tokenData).toBeNull();
    expect(u.failures).toHaveLength(1);
    expect(u.failures[0].reason).toMatch(/token data/);
  });

  it('an instruction whose account index is outside the account keys → parse.failed', () => {
    const tx = clone(fourCpi);
    compiled(tx, ACCOUNT_COMPRESSION_PROGRAM).accounts[0] = 250;
    const u = parse(tx);
    expect(u.failures.some((f) => f.program === ACCOUNT_COMPRESSION_PROGRAM && /outside/.test(f.reason))).toBe(true);
  });

  it('a transaction without Light programs: no events, a non-compression row; a vote transaction: no row', () => {
    const tx = clone(mint);
    const light = new Set([ACCOUNT_COMPRESSION_PROGRAM, LIGHT_SYSTEM_PROGRAM, NOOP_PROGRAM, 'cTokenmWW8bLPjZEBAUgYy3zKxQZW6VKi7bqNFEVv3m']);
    tx.instructions = tx.instructions.filter((ix) => !light.has(tx.accountKeys[ix.programIdIndex]));
    tx.innerInstructions = [];
    const u = parse(tx);
    expect(u.outputAccounts).toEqual([]);
    expect(u.transaction).toMatchObject({ signature: tx.signature, usesCompression: false });
    expect(parse({ ...tx, isVote: true }).transaction).toBeNull();
  });
});
