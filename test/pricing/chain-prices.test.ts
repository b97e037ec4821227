/**
 * Chain-derived prices behind the TokenRegistry interface: precedence (override > Pyth > swap), the staleness rules
 * (Pyth publish time against the clock, swap slot against the indexed slot) and SOL-quoted swaps valued at SOL's
 * own price. The data are real: the recorded mainnet block 254170887 (its swaps) and real Pyth PriceUpdateV2
 * accounts (./pyth-accounts.ts), replayed through the real ingester (account files as `solgate replay` reads them).
 * Expected prices are computed here from the Pyth account bytes (decoded by the parser tested in
 * pyth-price-update.test.ts) and from the swap rows (checked against the block in swap-prices.test.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NATIVE_MINT } from '../../src/core/programs.js';
import { replayInto } from '../../src/ingest/replay.js';
import { PYTH_RECEIVER_PROGRAM, decodePriceUpdateV2, pythPriceValue } from '../../src/parsers/pyth/price-update.js';
import { createChainPriceRegistry } from '../../src/pricing/chain-prices.js';
import { loadPythFeeds } from '../../src/pricing/pyth-feeds.js';
import { createFileTokenRegistry, type TokenInfo, type TokenRegistry } from '../../src/pricing/token-registry.js';
import { advanceCheckpoint } from '../../src/store/chain.js';
import { queryPythPrices, querySwapPrices, type StoredSwapPrice } from '../../src/store/prices.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { PYTH_ACCOUNTS } from './pyth-accounts.js';

const SLOT = 254170887;
const BLOCK = join(import.meta.dirname, '..', 'fixtures', 'photon-blocks', 'index_block_metadata', String(SLOT));
const FEEDS = loadPythFeeds(join(import.meta.dirname, '..', '..', 'data', 'pyth-feeds.json'));
const USDC = PYTH_ACCOUNTS.usdc.mint;
const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN'; // swapped against SOL in the block; no Pyth update stored
const STEP = 'StepAscQoEioFxxWGnh2sLBDFp9d8rvKz2Yp39iDpyT'; // swapped against USDC in the block; no Pyth feed
const SETTINGS = { pythMaxAgeSeconds: 300, swapMaxAgeSlots: 9000 };

const decoded = (b64: string) => decodePriceUpdateV2(new Uint8Array(Buffer.from(b64, 'base64')))!;
const solPyth = decoded(PYTH_ACCOUNTS.sol.base64);
const usdcPyth = decoded(PYTH_ACCOUNTS.usdc.base64);
const SOL_PYTH_USD = pythPriceValue(solPyth.price, solPyth.exponent);
const USDC_PYTH_USD = pythPriceValue(usdcPyth.price, usdcPyth.exponent);

let t: TestDb;
let dir: string;
let clock = 0;
const overlay = new Map<string, TokenInfo>();
let registry: TokenRegistry;
let swaps: Map<string, StoredSwapPrice>;

/** A PriceUpdateV2 account state as a replay file (the account's slot: its posted slot). */
function pythFile(name: string, address: string, b64: string): string {
  const file = join(dir, `${name}.json`);
  const slot = Number(decoded(b64).postedSlot);
  writeFileSync(file, JSON.stringify({ pubkey: address, owner: PYTH_RECEIVER_PROGRAM, lamports: 1_825_020, data: [b64, 'base64'], slot }));
  return file;
}
const at = (publishTime: number | bigint, plusSeconds: number) => (Number(publishTime) + plusSeconds) * 1000;

beforeAll(async () => {
  t = await createTestDb();
  dir = mkdtempSync(join(tmpdir(), 'chain-prices-'));
  await replayInto(t.db, [BLOCK]);
  // SOL/USD: the newest state last-but-one, an older state after it (must not replace it); USDC/USD; BONK only as a
  // partially verified update (ignored).
  await replayInto(t.db, [
    pythFile('sol', PYTH_ACCOUNTS.sol.address, PYTH_ACCOUNTS.sol.base64),
    pythFile('sol-older', PYTH_ACCOUNTS.sol.address, PYTH_ACCOUNTS.solJun2025),
    pythFile('usdc', PYTH_ACCOUNTS.usdc.address, PYTH_ACCOUNTS.usdc.base64),
    pythFile('bonk-partial', PYTH_ACCOUNTS.bonk.address, PYTH_ACCOUNTS.bonkPartialFromIdl),
  ]);
  registry = createChainPriceRegistry({
    db: t.db,
    overrides: createFileTokenRegistry('/nonexistent/tokens.json', { overlay }),
    feeds: FEEDS,
    settings: SETTINGS,
    now: () => clock,
  });
  swaps = await querySwapPrices(t.db, [NATIVE_MINT, JUP, STEP]);
}, 120_000);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t?.drop();
});

describe('stored Pyth prices', () => {
  it('keep the newest update of a feed; partially verified updates are ignored', async () => {
    const stored = await queryPythPrices(t.db, [solPyth.feedId, usdcPyth.feedId, decoded(PYTH_ACCOUNTS.bonk.base64).feedId]);
    expect(stored.get(solPyth.feedId)).toMatchObject({ price: solPyth.price, publishTime: Number(solPyth.publishTime), postedSlot: Number(solPyth.postedSlot) });
    expect(stored.get(usdcPyth.feedId)?.publishTime).toBe(Number(usdcPyth.publishTime));
    expect(stored.size).toBe(2);
  });
});

describe('precedence and staleness', () => {
  it('Pyth while fresh, with its posted slot and publish time', async () => {
    clock = at(solPyth.publishTime, 60);
    const m = await registry.lookup([NATIVE_MINT]);
    expect(m.get(NATIVE_MINT)?.price).toEqual({ usd: SOL_PYTH_USD, source: 'pyth', slot: Number(solPyth.postedSlot), time: Number(solPyth.publishTime) });
    expect(m.get(NATIVE_MINT)?.priceUsd).toBe(SOL_PYTH_USD);
    clock = at(usdcPyth.publishTime, SETTINGS.pythMaxAgeSeconds);
    expect((await registry.lookup([USDC])).get(USDC)?.price).toEqual({ usd: USDC_PYTH_USD, source: 'pyth', slot: Number(usdcPyth.postedSlot), time: Number(usdcPyth.publishTime) });
    // One second later it is stale, and USDC (a quote, never priced by swaps) has no price.
    clock = at(usdcPyth.publishTime, SETTINGS.pythMaxAgeSeconds + 1);
    expect((await registry.lookup([USDC])).has(USDC)).toBe(false);
  });

  it('a token swapped against SOL is valued at SOL\'s price; against USDC at the trade price', async () => {
    clock = at(solPyth.publishTime, 60);
    const m = await registry.lookup([JUP, STEP]);
    expect(m.get(JUP)?.price).toEqual({ usd: swaps.get(JUP)!.price * SOL_PYTH_USD, source: 'swap', slot: SLOT, time: swaps.get(JUP)!.blockTime });
    expect(swaps.get(JUP)?.quote).toBe('SOL');
    expect(m.get(STEP)?.price).toMatchObject({ usd: swaps.get(STEP)!.price, source: 'swap', slot: SLOT });
    expect(swaps.get(STEP)?.quote).toBe('USD');
  });

  it('a stale Pyth price gives way to the swap price (SOL from its swaps against USDC/USDT)', async () => {
    clock = at(solPyth.publishTime, SETTINGS.pythMaxAgeSeconds + 1);
    const m = await registry.lookup([NATIVE_MINT, JUP]);
    const solSwap = swaps.get(NATIVE_MINT)!;
    expect(solSwap.quote).toBe('USD');
    expect(m.get(NATIVE_MINT)?.price).toMatchObject({ usd: solSwap.price, source: 'swap', slot: SLOT });
    expect(m.get(JUP)?.priceUsd).toBeCloseTo(swaps.get(JUP)!.price * solSwap.price, 12);
  });

  it('the registry file overrides, SOL included (and SOL-quoted prices follow it)', async () => {
    clock = at(solPyth.publishTime, 60);
    overlay.set(NATIVE_MINT, { symbol: 'SOL', priceUsd: 100 });
    overlay.set(STEP, { priceUsd: 0.5 });
    try {
      const m = await registry.lookup([NATIVE_MINT, STEP, JUP]);
      expect(m.get(NATIVE_MINT)).toEqual({ symbol: 'SOL', priceUsd: 100, price: { usd: 100, source: 'override', slot: null, time: null } });
      expect(m.get(STEP)?.price).toEqual({ usd: 0.5, source: 'override', slot: null, time: null });
      expect(m.get(JUP)?.priceUsd).toBeCloseTo(swaps.get(JUP)!.price * 100, 12);
      // Names only: no price lookups.
      expect((await registry.lookup([JUP], { prices: false })).has(JUP)).toBe(false);
    } finally {
      overlay.clear();
    }
  });

  it('a swap price more than SOLGATE_PRICE_SWAP_MAX_AGE_SLOTS behind the indexed slot is not used', async () => {
    clock = at(solPyth.publishTime, 60);
    await advanceCheckpoint(t.db, SLOT + SETTINGS.swapMaxAgeSlots);
    let m = await registry.lookup([STEP, JUP]);
    expect(m.get(STEP)?.price?.source).toBe('swap');
    expect(m.get(JUP)?.price?.source).toBe('swap');
    await advanceCheckpoint(t.db, SLOT + SETTINGS.swapMaxAgeSlots + 1);
    m = await registry.lookup([STEP, JUP, NATIVE_MINT]);
    expect(m.has(STEP)).toBe(false);
    expect(m.has(JUP)).toBe(false);
    // SOL still has its fresh Pyth price; without it, nothing.
    expect(m.get(NATIVE_MINT)?.price?.source).toBe('pyth');
    clock = at(solPyth.publishTime, SETTINGS.pythMaxAgeSeconds + 1);
    expect((await registry.lookup([NATIVE_MINT])).has(NATIVE_MINT)).toBe(false);
  });
});
