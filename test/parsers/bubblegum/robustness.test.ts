/**
 * The Bubblegum parser never throws: malformed instructions and corrupt noop events become `parse.failed`, failed
 * transactions yield nothing, and recorded stack heights decide which noop events belong to a Bubblegum CPI.
 */
import { describe, expect, it } from 'vitest';
import type { NormalizedTx } from '../../../src/core/model.js';
import { parseBubblegumTransaction } from '../../../src/parsers/bubblegum/index.js';
import { allDasTransactions } from './helpers.js';

const ALL = allDasTransactions();
const byName = (prefix: string): NormalizedTx => structuredClone(ALL.find((t) => t.name.startsWith(prefix))!.tx);
const BGUM = 'BGUMAp9Gq7iTEuizy4pqaxsTyUCBK68MDfK752saRPUY';

/** The outer Bubblegum instruction of a single-instruction fixture, and its inner group. */
function outerBubblegum(tx: NormalizedTx) {
  const i = tx.instructions.findIndex((ix) => tx.accountKeys[ix.programIdIndex] === BGUM);
  return { ix: tx.instructions[i], inner: tx.innerInstructions.find((g) => g.index === i)!.instructions };
}

describe('Bubblegum parser robustness', () => {
  const transferTx = 'mint_transfer_transfer/34xjcNf3';

  it('unknown discriminator → parse.failed', () => {
    const tx = byName(transferTx);
    outerBubblegum(tx).ix.data = Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8, 9);
    const [e] = parseBubblegumTransaction(tx);
    expect(e).toMatchObject({ kind: 'parse.failed', program: BGUM });
    expect((e as { reason: string }).reason).toMatch(/unknown Bubblegum instruction/);
  });

  it('truncated data at every length → parse.failed, never a throw', () => {
    const base = byName(transferTx);
    const full = outerBubblegum(base).ix.data;
    for (let len = 0; len < full.length; len++) {
      const tx = structuredClone(base);
      outerBubblegum(tx).ix.data = full.subarray(0, len);
      const events = parseBubblegumTransaction(tx);
      expect(events).toHaveLength(1);
      expect(events[0].kind).toBe('parse.failed');
    }
  });

  it('too few accounts → parse.failed naming the missing account', () => {
    const tx = byName(transferTx);
    outerBubblegum(tx).ix.accounts = outerBubblegum(tx).ix.accounts.slice(0, 3);
    const [e] = parseBubblegumTransaction(tx);
    expect(e).toMatchObject({ kind: 'parse.failed' });
    expect((e as { reason: string }).reason).toMatch(/newLeafOwner/);
  });

  it('a corrupt Bubblegum leaf event → parse.failed; foreign noop data is ignored', () => {
    const tx = byName(transferTx);
    const { inner } = outerBubblegum(tx);
    const leafNoop = inner.find((c) => c.data[0] === 1)!;
    const good = parseBubblegumTransaction(structuredClone(tx))[0];
    // ApplicationData V1 of 3 bytes: LeafSchemaEvent, version V1, LeafSchema V1, then nothing.
    leafNoop.data = Uint8Array.of(1, 0, 3, 0, 0, 0, 1, 0, 0);
    expect(parseBubblegumTransaction(structuredClone(tx))[0].kind).toBe('parse.failed');
    leafNoop.data = Uint8Array.of(7, 7, 7);
    const e = parseBubblegumTransaction(tx)[0];
    expect(e.kind).toBe('cnft.transfer');
    expect((e as { leaf: unknown }).leaf).toBeNull();
    expect((e as { changeLog: unknown }).changeLog).toEqual((good as { changeLog: unknown }).changeLog);
  });

  it('a failed transaction yields nothing', () => {
    const tx = byName(transferTx);
    tx.meta = {
      err: { InstructionError: [0, { Custom: 6001 }] },
      fee: 5000n,
      preBalances: [],
      postBalances: [],
      preTokenBalances: null,
      postTokenBalances: null,
      computeUnitsConsumed: null,
    };
    expect(parseBubblegumTransaction(tx)).toEqual([]);
  });

  it('stack heights, when recorded, keep a caller’s later noop log away from the Bubblegum CPI', () => {
    // mint_transfer_noop/5bNyZfmx: outer 2 is a program that CPIs Bubblegum transfer, then logs via spl-noop itself.
    const tx = byName('mint_transfer_noop/5bNyZfmx');
    const group = tx.innerInstructions.find((g) => g.index === 2)!.instructions;
    const programOf = (i: number) => tx.accountKeys[group[i].programIdIndex];
    const bg = group.findIndex((_, i) => programOf(i) === BGUM);
    const changeLogNoop = group.findIndex((c, i) => i > bg && c.data[0] === 0);
    // The caller's own noop log after Bubblegum returned: a change log for another leaf index.
    const fake = { ...group[changeLogNoop], data: Uint8Array.from(group[changeLogNoop].data) };
    fake.data[fake.data.length - 4] ^= 0x7f;
    group.push(fake);
    const hoisted = parseBubblegumTransaction(structuredClone(tx))[0] as { changeLog: { leafIndex: number } };
    // Without heights the reference's rule attributes everything after the CPI to it (last change log wins).
    const trueIndex = (parseBubblegumTransaction(byName('mint_transfer_noop/5bNyZfmx'))[0] as { leafIndex: number })
      .leafIndex;
    expect(hoisted.changeLog.leafIndex).not.toBe(trueIndex);
    // Heights: Bubblegum at 2, its noop / compression CPIs deeper, the caller's own calls at 2.
    group.forEach((c, i) => {
      const p = programOf(i);
      c.stackHeight = i < bg || i === bg || i === group.length - 1 || i === group.length - 2 ? 2 : p.startsWith('noop') && c.data[0] === 0 ? 4 : 3;
    });
    const e = parseBubblegumTransaction(tx)[0] as { kind: string; leafIndex: number; changeLog: { leafIndex: number } };
    expect(e.kind).toBe('cnft.transfer');
    expect(e.changeLog.leafIndex).toBe(trueIndex);
  });
});
