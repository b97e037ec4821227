/**
 * Prices from the chain, behind the `TokenRegistry` interface the Wallet and DAS code already use.
 *
 * A mint's USD price, the first that applies (docs/prices.md):
 *  1. override: a `priceUsd` in the token registry file (SOLGATE_TOKENS_FILE) — the operator's word wins;
 *  2. pyth: the stored Pyth price of the mint's feed (SOLGATE_PRICE_FEEDS_FILE), unless its publish time is more than
 *     `pythMaxAgeSeconds` before now;
 *  3. swap: the stored price of the mint's latest qualifying swap against USDC/USDT or SOL (src/ingest/fold-prices.ts),
 *     unless its slot is more than `swapMaxAgeSlots` behind the indexed slot (the checkpoint). A price against SOL is
 *     multiplied by SOL's own current price, found by the same rules (override, Pyth SOL/USD, swaps of wrapped SOL
 *     against USDC/USDT); without a usable SOL price it is not used.
 * A price that is not positive and finite is never used. Names, symbols and logos come from the registry file as
 * before. Each lookup reads the stored prices of the mints asked for in a few indexed queries (no cache: API-only
 * processes read what the ingesting process wrote).
 */
import { NATIVE_MINT } from '../core/programs.js';
import type { Queryable } from '../store/db.js';
import { getCheckpoint } from '../store/chain.js';
import { queryPythPrices, querySwapPrices, type StoredPythPrice, type StoredSwapPrice } from '../store/prices.js';
import type { PythFeeds } from './pyth-feeds.js';
import type { LookupOptions, TokenInfo, TokenPrice, TokenRegistry } from './token-registry.js';

export interface PriceSettings {
  /** A Pyth price published longer ago than this is not used (SOLGATE_PRICE_PYTH_MAX_AGE_SECONDS). */
  pythMaxAgeSeconds: number;
  /** A swap price more than this many slots behind the indexed slot is not used (SOLGATE_PRICE_SWAP_MAX_AGE_SLOTS). */
  swapMaxAgeSlots: number;
}

export interface ChainPriceOptions {
  db: Queryable;
  /** The registry file (metadata, and price overrides). */
  overrides: TokenRegistry;
  feeds: PythFeeds;
  settings: PriceSettings;
  /** Wall clock in ms (Pyth staleness); Date.now by default. */
  now?: () => number;
}

const usable = (v: number) => Number.isFinite(v) && v > 0;

function pythPrice(p: StoredPythPrice, nowSec: number, maxAge: number): TokenPrice | null {
  const usd = Number(p.price) * 10 ** p.exponent;
  if (!usable(usd) || nowSec - p.publishTime > maxAge) return null;
  return { usd, source: 'pyth', slot: p.postedSlot, time: p.publishTime };
}

/** USD prices of `mints` from the stored Pyth and swap prices (overrides are the caller's). */
export async function chainPrices(
  o: Omit<ChainPriceOptions, 'overrides'> & { solOverride?: number },
  mints: readonly string[],
): Promise<Map<string, TokenPrice>> {
  const out = new Map<string, TokenPrice>();
  if (!mints.length) return out;
  const all = [...new Set([...mints, NATIVE_MINT])];
  const feedOf = (m: string) => o.feeds.get(m)?.feedId;
  const feedIds = all.flatMap((m) => feedOf(m) ?? []);
  const [pyth, swaps, checkpoint] = await Promise.all([queryPythPrices(o.db, feedIds), querySwapPrices(o.db, all), getCheckpoint(o.db)]);
  const nowSec = Math.floor((o.now ?? Date.now)() / 1000);

  const fromPyth = (m: string): TokenPrice | null => {
    const f = feedOf(m);
    const p = f ? pyth.get(f) : undefined;
    return p ? pythPrice(p, nowSec, o.settings.pythMaxAgeSeconds) : null;
  };
  const freshSwap = (m: string): StoredSwapPrice | null => {
    const s = swaps.get(m);
    if (!s || !usable(s.price)) return null;
    const tip = Math.max(checkpoint ?? s.slot, s.slot);
    return tip - s.slot <= o.settings.swapMaxAgeSlots ? s : null;
  };
  const swapPrice = (s: StoredSwapPrice, solUsd: number | null): TokenPrice | null => {
    const usd = s.quote === 'USD' ? s.price : solUsd === null ? NaN : s.price * solUsd;
    return usable(usd) ? { usd, source: 'swap', slot: s.slot, time: s.blockTime } : null;
  };

  // SOL first: a SOL-quoted swap price needs it.
  let sol: TokenPrice | null = null;
  if (o.solOverride !== undefined && usable(o.solOverride)) sol = { usd: o.solOverride, source: 'override', slot: null, time: null };
  else {
    sol = fromPyth(NATIVE_MINT);
    if (!sol) {
      const s = freshSwap(NATIVE_MINT);
      sol = s && s.quote === 'USD' ? swapPrice(s, null) : null;
    }
  }
  for (const m of mints) {
    if (m === NATIVE_MINT) {
      if (sol && sol.source !== 'override') out.set(m, sol);
      continue;
    }
    const p = fromPyth(m);
    if (p) {
      out.set(m, p);
      continue;
    }
    const s = freshSwap(m);
    const sp = s ? swapPrice(s, sol?.usd ?? null) : null;
    if (sp) out.set(m, sp);
  }
  return out;
}

/** The token registry with chain-derived prices: `overrides` (the file) for names and overriding prices, then Pyth, then swaps. */
export function createChainPriceRegistry(o: ChainPriceOptions): TokenRegistry {
  return {
    async lookup(mints: string[], opts: LookupOptions = {}): Promise<Map<string, TokenInfo>> {
      const base = await o.overrides.lookup([...new Set([...mints, NATIVE_MINT])], opts);
      const out = new Map<string, TokenInfo>();
      for (const m of mints) {
        const v = base.get(m);
        if (v) out.set(m, v);
      }
      if (opts.prices === false) return out;
      const need = [...new Set(mints)].filter((m) => out.get(m)?.priceUsd === undefined);
      if (!need.length) return out;
      const prices = await chainPrices({ ...o, solOverride: base.get(NATIVE_MINT)?.priceUsd }, need);
      for (const [m, price] of prices) out.set(m, { ...out.get(m), priceUsd: price.usd, price });
      return out;
    },
  };
}
