/**
 * Swap-derived prices from a real mainnet block (test/fixtures/photon-blocks/index_block_metadata/254170887, 602
 * transactions of slot 254170887 as getBlock returned them) replayed through the real ingester into the store.
 *
 * Expectations come from the block itself, independently of the swap classifier: every stored amount is the amount
 * of an SPL Token transfer instruction the transaction executed (decoded here from its inner instructions, the mint
 * from its recorded token balances), every stored trade is above the dust thresholds, and a token the block only
 * traded in dust amounts gets no price.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NormalizedTx } from '../../src/core/model.js';
import { NATIVE_MINT } from '../../src/core/programs.js';
import { createIngester } from '../../src/ingest/pipeline.js';
import { SWAP_PRICE_MIN_SOL, SWAP_PRICE_MIN_USD, USDC_MINT, USDT_MINT } from '../../src/ingest/fold-prices.js';
import { replayInto } from '../../src/ingest/replay.js';
import { walkTransaction } from '../../src/parsers/walk.js';
import { createReplaySource } from '../../src/sources/replay.js';
import { normalizeRpcTransaction } from '../../src/sources/normalize-rpc.js';
import { querySwapPrices } from '../../src/store/prices.js';
import { createTestDb, tableDigests, type TestDb } from '../helpers/db.js';

const SLOT = 254170887;
const FILE = join(import.meta.dirname, '..', 'fixtures', 'photon-blocks', 'index_block_metadata', String(SLOT));
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
/** A mint the block trades only in dust: 0.0003 SOL and 0.03 SOL (tx 2Wt1hPKU…, and a failed/partial rest). */
const DUST_ONLY = 'GNsMdekJbyqnhUfaGPgDABzWaJ6B2tN1UL8mvkMr5pf6';

type Row = {
  mint: string; quote: 'USD' | 'SOL'; quote_mint: string; price: number; base_amount: number; quote_amount: number;
  slot: string; pos: string; ord: number; signature: string; program: string; block_time: string | null;
};

const block = JSON.parse(readFileSync(FILE, 'utf8'));
const txs: NormalizedTx[] = block.transactions.map((t: object) => normalizeRpcTransaction({ ...t, slot: SLOT, blockTime: block.blockTime }));
const bySig = new Map(txs.map((t) => [t.signature, t]));

/** The SPL Token transfers (Transfer = 3, TransferChecked = 12) the transaction executed: mint and UI amount. */
function tokenTransfers(tx: NormalizedTx): { mint: string; amount: number }[] {
  const info = new Map<string, { mint: string; decimals: number }>();
  for (const b of [...(tx.meta?.preTokenBalances ?? []), ...(tx.meta?.postTokenBalances ?? [])])
    info.set(tx.accountKeys[b.accountIndex], { mint: b.mint, decimals: b.decimals });
  const out: { mint: string; amount: number }[] = [];
  for (const ix of walkTransaction(tx)) {
    if (ix.programId !== TOKEN_PROGRAM || (ix.data[0] !== 3 && ix.data[0] !== 12) || ix.data.length < 9) continue;
    const raw = Buffer.from(ix.data).readBigUInt64LE(1);
    // Source or destination (a temporary account opened and closed in the transaction has no recorded balance).
    const known = info.get(ix.accounts[0]) ?? info.get(ix.accounts[ix.data[0] === 3 ? 1 : 2]);
    if (known) out.push({ mint: known.mint, amount: Number(raw) / 10 ** known.decimals });
  }
  return out;
}

let t: TestDb;
let rows: Row[];

beforeAll(async () => {
  t = await createTestDb();
  await replayInto(t.db, [FILE]);
  rows = (await t.db.query<Row>('SELECT * FROM swap_prices ORDER BY mint')).rows;
}, 120_000);
afterAll(async () => {
  await t?.drop();
});

describe(`swap prices of recorded mainnet block ${SLOT}`, () => {
  it('prices the tokens swapped against USDC/USDT/SOL, SOL itself among them', () => {
    expect(rows.length).toBeGreaterThanOrEqual(10);
    const sol = rows.find((r) => r.mint === NATIVE_MINT);
    expect(sol?.quote).toBe('USD');
    // Mid-March 2024 (block time 1710441678): SOL traded around $165.
    expect(sol!.price).toBeGreaterThan(150);
    expect(sol!.price).toBeLessThan(180);
    for (const r of rows) {
      expect(r.quote_mint === NATIVE_MINT ? 'SOL' : 'USD', r.mint).toBe(r.quote);
      expect([USDC_MINT, USDT_MINT, NATIVE_MINT]).toContain(r.quote_mint);
      expect(Number(r.slot)).toBe(SLOT);
      expect(Number(r.block_time)).toBe(block.blockTime);
    }
  });

  it('every stored trade is two token transfers the transaction executed, and its price is their ratio', () => {
    for (const r of rows) {
      const tx = bySig.get(r.signature)!;
      expect(tx, r.signature).toBeDefined();
      expect(tx.meta?.err ?? null).toBeNull();
      expect(Number(r.pos)).toBe(SLOT * 1_000_000 + txs.indexOf(tx)); // its position in the block
      const moved = tokenTransfers(tx);
      const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, b);
      expect(moved.some((m) => m.mint === r.mint && close(m.amount, r.base_amount)), `${r.signature}: ${r.base_amount} of ${r.mint}`).toBe(true);
      expect(moved.some((m) => m.mint === r.quote_mint && close(m.amount, r.quote_amount)), `${r.signature}: ${r.quote_amount} of ${r.quote_mint}`).toBe(true);
      expect(r.price).toBeCloseTo(r.quote_amount / r.base_amount, 12);
      expect(walkTransaction(tx).some((ix) => ix.programId === r.program), r.program).toBe(true);
    }
  });

  it('dust is ignored: every trade is at least the minimum, a token traded only in dust has no price', () => {
    for (const r of rows) expect(r.quote_amount).toBeGreaterThanOrEqual(r.quote === 'USD' ? SWAP_PRICE_MIN_USD : SWAP_PRICE_MIN_SOL);
    expect(txs.some((tx) => tx.meta?.err === null && tx.meta.postTokenBalances?.some((b) => b.mint === DUST_ONLY))).toBe(true);
    expect(rows.find((r) => r.mint === DUST_ONLY)).toBeUndefined();
  });

  it('replaying the block changes nothing; an older copy of its swaps does not replace them, a newer one does', async () => {
    const before = await tableDigests(t.db, ['swap_prices']);
    await replayInto(t.db, [FILE]);
    expect(await tableDigests(t.db, ['swap_prices'])).toEqual(before);

    const shifted = async (slot: number) => {
      const blocks = [];
      for await (const b of createReplaySource([FILE]).blocks(0)) blocks.push({ ...b, transactions: b.transactions.map((x) => ({ ...x, slot })) });
      // As history (the backfill path): no block rows, no checkpoint.
      await createIngester(t.db).ingestHistory(blocks.flatMap((b) => b.transactions));
    };
    await shifted(SLOT - 10);
    expect(await tableDigests(t.db, ['swap_prices'])).toEqual(before);
    await shifted(SLOT + 10);
    const after = await querySwapPrices(t.db, rows.map((r) => r.mint));
    for (const r of rows) {
      expect(after.get(r.mint)?.slot, r.mint).toBe(SLOT + 10);
      expect(after.get(r.mint)?.price).toBeCloseTo(r.price, 12);
    }
  });
});
