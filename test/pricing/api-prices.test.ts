/**
 * Chain-derived prices through the HTTP API, with the registry serve composes (src/pricing/chain-prices.ts):
 * Wallet REST balances (`pricePerToken`, `usdValue`, `totalUsdValue`) and DAS fungibles (`token_info.symbol`,
 * `token_info.price_info`, `nativeBalance.price_per_sol`).
 *
 * Real inputs, replayed as `solgate replay` does: the recorded mainnet block 254170887 (its swaps price SOL against
 * USDC and JUP against SOL), the reference's recorded USDC mint and Token Metadata accounts (DAS fixture
 * fungible_token_get_asset_scenario_1), and the real USDC/USD and SOL/USD Pyth accounts; the clock is set 10 s after
 * the USDC update was published, when the (older) SOL/USD update is stale. So USDC is priced by Pyth, SOL by its
 * swaps against USDC, JUP by its swap against SOL at that SOL price. The holder wallet and its token accounts are ours
 * (the fixtures record no holder of these mints).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NATIVE_MINT, SYSTEM_PROGRAM } from '../../src/core/programs.js';
import { replayInto } from '../../src/ingest/replay.js';
import { PYTH_RECEIVER_PROGRAM, decodePriceUpdateV2, pythPriceValue } from '../../src/parsers/pyth/price-update.js';
import { createChainPriceRegistry } from '../../src/pricing/chain-prices.js';
import { loadPythFeeds } from '../../src/pricing/pyth-feeds.js';
import { createFileTokenRegistry, type TokenInfo } from '../../src/pricing/token-registry.js';
import { querySwapPrices } from '../../src/store/prices.js';
import { createTestApp, getOk, type TestApp } from '../helpers/app.js';
import { applyInputs, callRpc, loadCases } from '../das/harness.js';
import { PYTH_ACCOUNTS } from './pyth-accounts.js';

const SLOT = 254170887;
const BLOCK = join(import.meta.dirname, '..', 'fixtures', 'photon-blocks', 'index_block_metadata', String(SLOT));
const FEEDS = loadPythFeeds(join(import.meta.dirname, '..', '..', 'data', 'pyth-feeds.json'));
const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const USDC = PYTH_ACCOUNTS.usdc.mint;
const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';
const HOLDER = bs58.encode(Buffer.alloc(32, 21));
const LAMPORTS = 2_500_000_000n;

const usdcPyth = decodePriceUpdateV2(new Uint8Array(Buffer.from(PYTH_ACCOUNTS.usdc.base64, 'base64')))!;
const USDC_USD = pythPriceValue(usdcPyth.price, usdcPyth.exponent);
const NOW_MS = (Number(usdcPyth.publishTime) + 10) * 1000;

let ta: TestApp;
let dir: string;
const overlay = new Map<string, TokenInfo>();
let SOL_USD: number;
let JUP_USD: number;

function file(name: string, record: object): string {
  const f = join(dir, `${name}.json`);
  writeFileSync(f, JSON.stringify(record));
  return f;
}
/** A plain 165-byte SPL token account (initialized, no delegate, not native, no close authority). */
function tokenAccount(address: string, mint: string, owner: string, amount: bigint): string {
  const data = Buffer.alloc(165);
  Buffer.from(bs58.decode(mint)).copy(data, 0);
  Buffer.from(bs58.decode(owner)).copy(data, 32);
  data.writeBigUInt64LE(amount, 64);
  data[108] = 1;
  return file(address, { pubkey: address, lamports: 2_039_280, owner: TOKEN, data: [data.toString('base64'), 'base64'], slot: SLOT + 1 });
}
const pyth = (a: { address: string; base64: string }) =>
  file(a.address, { pubkey: a.address, owner: PYTH_RECEIVER_PROGRAM, lamports: 1_825_020, data: [a.base64, 'base64'], slot: SLOT + 1 });

beforeAll(async () => {
  ta = await createTestApp((db) => ({
    tokens: createChainPriceRegistry({
      db,
      overrides: createFileTokenRegistry('/nonexistent/tokens.json', { overlay }),
      feeds: FEEDS,
      settings: { pythMaxAgeSeconds: 300, swapMaxAgeSlots: 9000 },
      now: () => NOW_MS,
    }),
  }));
  dir = mkdtempSync(join(tmpdir(), 'api-prices-'));
  await replayInto(ta.t.db, [BLOCK]);
  await applyInputs(ta, loadCases().find((c) => c.id === 'fungible_token_get_asset_scenario_1')!.inputs);
  await replayInto(ta.t.db, [
    pyth(PYTH_ACCOUNTS.usdc),
    pyth(PYTH_ACCOUNTS.sol),
    file(HOLDER, { pubkey: HOLDER, owner: SYSTEM_PROGRAM, lamports: Number(LAMPORTS), data: ['', 'base64'], slot: SLOT + 1 }),
    tokenAccount(bs58.encode(Buffer.alloc(32, 22)), USDC, HOLDER, 1_500_000n),
    tokenAccount(bs58.encode(Buffer.alloc(32, 23)), JUP, HOLDER, 40_000_000n),
  ]);
  const swaps = await querySwapPrices(ta.t.db, [NATIVE_MINT, JUP]);
  expect(swaps.get(NATIVE_MINT)?.quote).toBe('USD');
  expect(swaps.get(JUP)?.quote).toBe('SOL');
  SOL_USD = swaps.get(NATIVE_MINT)!.price;
  JUP_USD = swaps.get(JUP)!.price * SOL_USD;
}, 180_000);
afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  await ta?.close();
});

describe('Wallet balances with chain-derived prices', () => {
  it('SOL by its swaps, USDC by Pyth, JUP by its swap against SOL; USD values and their total', async () => {
    const body = await getOk(ta, `/v1/wallet/${HOLDER}/balances`);
    const by = new Map<string, { balance: number; pricePerToken: number | null; usdValue: number | null }>(body.balances.map((b: { mint: string }) => [b.mint, b]));
    expect(body.balances[0].mint).toBe(NATIVE_MINT);
    expect(by.get(NATIVE_MINT)).toMatchObject({ balance: 2.5, pricePerToken: SOL_USD, usdValue: 2.5 * SOL_USD });
    expect(by.get(USDC)).toMatchObject({ balance: 1.5, pricePerToken: USDC_USD, usdValue: 1.5 * USDC_USD });
    expect(by.get(JUP)?.balance).toBe(40);
    expect(by.get(JUP)?.pricePerToken).toBeCloseTo(JUP_USD, 12);
    expect(by.get(JUP)?.usdValue).toBeCloseTo(40 * JUP_USD, 10);
    expect(body.totalUsdValue).toBeCloseTo(2.5 * SOL_USD + 1.5 * USDC_USD + 40 * JUP_USD, 9);
    // Tokens by USD value after SOL: JUP's ~$37 before USDC's ~$1.5.
    expect(body.balances.map((b: { mint: string }) => b.mint)).toEqual([NATIVE_MINT, JUP, USDC]);
  });

  it('the registry file overrides a chain price', async () => {
    overlay.set(USDC, { priceUsd: 1 });
    try {
      const body = await getOk(ta, `/v1/wallet/${HOLDER}/balances?showNative=false`);
      expect(body.balances.find((b: { mint: string }) => b.mint === USDC)).toMatchObject({ pricePerToken: 1, usdValue: 1.5 });
    } finally {
      overlay.clear();
    }
  });
});

describe('DAS fungibles with chain-derived prices', () => {
  it('getAsset (showFungible): token_info.symbol and price_info as the hosted service returns them', async () => {
    const r = await callRpc(ta, 'getAsset', { id: USDC, displayOptions: { showFungible: true } });
    const a = r.result as { interface: string; content: { metadata: { symbol: string } }; token_info: Record<string, unknown> };
    expect(a.interface).toBe('FungibleToken');
    expect(a.token_info.symbol).toBe(a.content.metadata.symbol);
    expect(a.token_info.symbol).toBe('USDC');
    expect(a.token_info.price_info).toEqual({ price_per_token: USDC_USD, currency: 'USDC' });
    expect(Object.keys(a.token_info)[0]).toBe('symbol');
    // Without showFungible there is no token_info at all.
    const plain = await callRpc(ta, 'getAsset', { id: USDC });
    expect((plain.result as Record<string, unknown>).token_info).toBeUndefined();
  });

  it('getAssetsByOwner: the holder\'s balance with total_price, and nativeBalance at SOL\'s price', async () => {
    const r = await callRpc(ta, 'getAssetsByOwner', { ownerAddress: HOLDER, displayOptions: { showFungible: true, showNativeBalance: true } });
    const res = r.result as { items: { id: string; token_info: Record<string, unknown> }[]; nativeBalance: Record<string, number> };
    const usdc = res.items.find((i) => i.id === USDC)!;
    expect(usdc.token_info).toMatchObject({ symbol: 'USDC', balance: 1_500_000, decimals: 6 });
    expect(usdc.token_info.price_info).toEqual({ price_per_token: USDC_USD, total_price: 1.5 * USDC_USD, currency: 'USDC' });
    expect(res.nativeBalance).toEqual({ lamports: Number(LAMPORTS), price_per_sol: SOL_USD, total_price: 2.5 * SOL_USD });
  });

  it('no usable price, no price_info (the symbol stays)', async () => {
    // Ten minutes later USDC's Pyth update is stale and USDC, a quote, has no swap price.
    const late = createChainPriceRegistry({
      db: ta.t.db, overrides: createFileTokenRegistry('/nonexistent/tokens.json'), feeds: FEEDS,
      settings: { pythMaxAgeSeconds: 300, swapMaxAgeSlots: 9000 }, now: () => NOW_MS + 600_000,
    });
    const { addTokenPrices } = await import('../../src/api/das/price-info.js');
    const r = await callRpc(ta, 'getAsset', { id: USDC, displayOptions: { showFungible: true } });
    const a = r.result as { token_info: Record<string, unknown> };
    delete a.token_info.symbol;
    delete a.token_info.price_info;
    await addTokenPrices([a as Record<string, unknown>], late);
    expect(a.token_info.symbol).toBe('USDC');
    expect(a.token_info.price_info).toBeUndefined();
  });
});
