/**
 * A block's fold makes one balance row per account and no repeated mint row (src/ingest/fold-block.ts BlockSeen):
 * what the writers keep of them is what they keep of the rows of its transactions folded one by one.
 */
import { describe, expect, it } from 'vitest';
import type { Block } from '../../src/core/model.js';
import { emptyContext, foldBlock, type ParsedTx } from '../../src/ingest/fold-block.js';
import type { MintPatch, SolBalanceRow } from '../../src/store/block-update.js';
import { dedupeBy } from '../../src/store/bulk.js';
import { MINT_GROUPS, mergePatches } from '../../src/store/tokens.js';
// A real mainnet block: 444 non-vote transactions, mostly swaps, naming the same pools and mints again and again.
import { loadMainnetBlock } from '../helpers/mainnet-block.js';

/** Each transaction folded as a block of its own: rows that no other transaction's can have replaced. */
function oneByOne(block: Block, parsed: ParsedTx[]): { sol: SolBalanceRow[]; mints: MintPatch[] } {
  const sol: SolBalanceRow[] = [];
  const mints: MintPatch[] = [];
  for (const p of parsed) {
    const u = foldBlock({ ...block, transactions: [p.tx] }, [p], emptyContext());
    sol.push(...u.solBalances);
    mints.push(...u.mints);
  }
  return { sol, mints };
}

describe('foldBlock on a mainnet block', () => {
  it('makes one balance row per account: the newest of its transactions', async () => {
    const { block, parsed } = await loadMainnetBlock();
    const u = foldBlock(block, parsed, emptyContext());
    const { sol } = oneByOne(block, parsed);
    expect(sol.length).toBeGreaterThan(u.solBalances.length * 2);
    expect(new Set(u.solBalances.map((r) => r.address)).size).toBe(u.solBalances.length);
    expect(u.solBalances).toEqual(dedupeBy(sol, (r) => r.address, (a, b) => a.pos >= b.pos));
  });

  it('repeats no mint row, and the mints merge to what every transaction’s rows merge to', async () => {
    const { block, parsed } = await loadMainnetBlock();
    const u = foldBlock(block, parsed, emptyContext());
    const { mints } = oneByOne(block, parsed);
    expect(mints.length).toBeGreaterThan(u.mints.length * 2);
    expect(new Set(u.mints.map((m) => JSON.stringify(m))).size).toBe(u.mints.length);
    expect(mergePatches(u.mints, MINT_GROUPS)).toEqual(mergePatches(mints, MINT_GROUPS));
  });
});
