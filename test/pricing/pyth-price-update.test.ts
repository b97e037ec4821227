/**
 * The Pyth PriceUpdateV2 decoder on real accounts, and the feed list against Pyth's own address rule.
 *
 * The account bytes are real Pyth Solana Receiver accounts, as they appear base64-encoded in other projects'
 * published tests; the expected values are the ones those projects assert (not read back from our decoder):
 *  - BONK/USD (DBE3N8…, mainnet, slot 268841733): drift-labs/protocol-v2's oracle test asserts a price of 34552600 for
 *    1M BONK in 1e-6 USD (Pyth1MPull) and an oracle TWAP of 33576300 (the EMA price) from these bytes;
 *  - USDC/USD (Dpw1EAV…, mainnet, fetched at slot 414496713): a freshness decoder's test asserts posted_slot 414496622,
 *    publish_time 1776696877, exponent −8, verification level Full (tag byte 1 at offset 40);
 *  - SOL/USD (7UVimff…, the sponsored account; a Python oracle parser's test): Full, exponent −8.
 * The Partial variant was encoded with Pyth's published receiver IDL (`pyth_solana_receiver.json`: PriceUpdateV2,
 * VerificationLevel, PriceFeedMessage) through Anchor's BorshAccountsCoder, from the BONK account with
 * `verificationLevel = { partial: { numSignatures: 5 } }`.
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getProgramDerivedAddress, type Address } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import {
  PRICE_UPDATE_V2_DISCRIMINATOR, PYTH_PUSH_ORACLE_PROGRAM, PYTH_RECEIVER_PROGRAM, PYTH_SOL_USD_FEED_ID, decodePriceUpdateV2,
  decodePythAccount, pythPriceValue,
} from '../../src/parsers/pyth/price-update.js';
import { loadPythFeeds, parsePythFeeds } from '../../src/pricing/pyth-feeds.js';
import { PYTH_ACCOUNTS } from './pyth-accounts.js';

const bytes = (b64: string) => new Uint8Array(Buffer.from(b64, 'base64'));
const FEEDS_FILE = join(import.meta.dirname, '..', '..', 'data', 'pyth-feeds.json');

describe('PriceUpdateV2 decoding (real accounts)', () => {
  it('BONK/USD: the price and EMA price Drift asserts for the same bytes', () => {
    const p = decodePriceUpdateV2(bytes(PYTH_ACCOUNTS.bonk.base64))!;
    expect(p).not.toBeNull();
    // Drift's Pyth1MPull: USD per 1M BONK with 6 decimals = price · 10^(exponent + 6 + 6).
    expect(Number(p.price) * 10 ** (p.exponent + 12)).toBeCloseTo(34_552_600, 6);
    expect(Number(p.emaPrice) * 10 ** (p.exponent + 12)).toBeCloseTo(33_576_300, 6);
    expect(p.verification).toEqual({ kind: 'full' });
    expect(p.feedId).toBe('72b021217ca3fe68922a19aaf990109cb9d84e9ad004b4d2025ad6f529314419'); // BONK/USD in Pyth's list
    expect(pythPriceValue(p.price, p.exponent)).toBeCloseTo(0.0000345526, 12);
  });

  it('USDC/USD (mainnet): posted slot, publish time, exponent and verification level as recorded', () => {
    const d = bytes(PYTH_ACCOUNTS.usdc.base64);
    expect(d.length).toBe(134);
    expect([...d.subarray(0, 8)]).toEqual([...PRICE_UPDATE_V2_DISCRIMINATOR]);
    const p = decodePriceUpdateV2(d)!;
    expect(p.postedSlot).toBe(414_496_622n);
    expect(p.publishTime).toBe(1_776_696_877n);
    expect(p.exponent).toBe(-8);
    expect(p.verification).toEqual({ kind: 'full' });
    expect(p.feedId).toBe('eaa020c61cc479712813461ce153894a96a6c00b21ed0cfc2798d1f9a9e9c94a'); // USDC/USD
    expect(pythPriceValue(p.price, p.exponent)).toBeGreaterThan(0.99);
    expect(pythPriceValue(p.price, p.exponent)).toBeLessThan(1.01);
  });

  it('SOL/USD (the sponsored account): Full, exponent −8, the SOL/USD feed id', () => {
    const p = decodePriceUpdateV2(bytes(PYTH_ACCOUNTS.sol.base64))!;
    expect(p.verification).toEqual({ kind: 'full' });
    expect(p.exponent).toBe(-8);
    expect(p.feedId).toBe(PYTH_SOL_USD_FEED_ID);
    expect(p.writeAuthority).toBe(PYTH_ACCOUNTS.sol.address);
  });

  it('the Partial variant (encoded with Pyth\'s IDL): one more byte before the message, the same message', () => {
    const full = decodePriceUpdateV2(bytes(PYTH_ACCOUNTS.bonk.base64))!;
    const partial = decodePriceUpdateV2(bytes(PYTH_ACCOUNTS.bonkPartialFromIdl))!;
    expect(partial.verification).toEqual({ kind: 'partial', numSignatures: 5 });
    expect({ ...partial, verification: full.verification }).toEqual(full);
  });

  it('anything else is not a price update', () => {
    const d = bytes(PYTH_ACCOUNTS.usdc.base64);
    const wrongDisc = d.slice();
    wrongDisc[0] ^= 0xff;
    expect(decodePriceUpdateV2(wrongDisc)).toBeNull();
    expect(decodePriceUpdateV2(d.subarray(0, 100))).toBeNull();
    const badTag = d.slice();
    badTag[40] = 7;
    expect(decodePriceUpdateV2(badTag)).toBeNull();
    expect(decodePriceUpdateV2(new Uint8Array(0))).toBeNull();
    const update = { pubkey: PYTH_ACCOUNTS.usdc.address, owner: PYTH_RECEIVER_PROGRAM, lamports: 1n, data: d, executable: false, slot: 1, writeVersion: 0n };
    expect(decodePythAccount(update)?.account).toBe(PYTH_ACCOUNTS.usdc.address);
    expect(decodePythAccount({ ...update, owner: '11111111111111111111111111111111' })).toBeNull();
    expect(decodePythAccount({ ...update, data: new Uint8Array(0) })).toBeNull();
  });
});

describe('the feed list (data/pyth-feeds.json)', () => {
  const feeds = loadPythFeeds(FEEDS_FILE);

  it('each account is the Pyth Push Oracle PDA of shard 0 and its feed id', async () => {
    expect(feeds.size).toBeGreaterThanOrEqual(10);
    for (const f of feeds.values()) {
      const shard = new Uint8Array(2); // u16 LE 0
      const [pda] = await getProgramDerivedAddress({ programAddress: PYTH_PUSH_ORACLE_PROGRAM as Address, seeds: [shard, Buffer.from(f.feedId, 'hex')] });
      expect(pda, f.symbol).toBe(f.account);
    }
  });

  it('the recorded accounts are the ones listed for their mints, with the feed ids they hold', () => {
    const byAccount = new Map([...feeds.values()].map((f) => [f.account, f]));
    for (const a of [PYTH_ACCOUNTS.sol, PYTH_ACCOUNTS.usdc, PYTH_ACCOUNTS.bonk]) {
      const f = byAccount.get(a.address);
      expect(f?.mint, a.address).toBe(a.mint);
      expect(f?.feedId).toBe(decodePriceUpdateV2(bytes(a.base64))!.feedId);
    }
  });

  it('the bundled list is found from any working directory (relative paths fall back to the package)', () => {
    const cwd = process.cwd();
    process.chdir(tmpdir());
    try {
      expect(loadPythFeeds('data/pyth-feeds.json').size).toBe(feeds.size);
    } finally {
      process.chdir(cwd);
    }
  });

  it('refuses a malformed list', () => {
    expect(() => parsePythFeeds([])).toThrow(/object keyed by mint/);
    expect(() => parsePythFeeds({ So11111111111111111111111111111111111111112: { feedId: 'xyz', account: PYTH_ACCOUNTS.sol.address } })).toThrow(/feedId/);
    expect(() => parsePythFeeds({ So11111111111111111111111111111111111111112: { feedId: PYTH_SOL_USD_FEED_ID } })).toThrow(/account/);
    expect(() => loadPythFeeds('/nonexistent/feeds.json')).toThrow(/SOLGATE_PRICE_FEEDS_FILE/);
    expect(JSON.parse(readFileSync(FEEDS_FILE, 'utf8')).$comment).toMatch(/sponsored/);
  });
});
