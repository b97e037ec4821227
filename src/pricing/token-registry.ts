/**
 * Token registry: symbol, name, logo and USD price by mint. Pluggable (`TokenRegistry`); the file registry here reads
 * a JSON file and reloads it when it changes. Prices come from the chain (src/pricing/chain-prices.ts composes this
 * registry with Pyth and swap prices); a `priceUsd` in the file is an operator's override and wins over them.
 *
 * File format: `{ "<mint>": { "symbol"?, "name"?, "logoUri"?, "priceUsd"? }, ... }` (keys starting with `$` are
 * comments/metadata and ignored).
 */
import { readFileSync, statSync } from 'node:fs';

/** Where a price comes from: the registry file (an operator's override), a Pyth price feed, or an indexed swap. */
export type PriceSource = 'override' | 'pyth' | 'swap';

/** A USD price and what it is based on. */
export interface TokenPrice {
  usd: number;
  source: PriceSource;
  /** Slot of the data it was read from (Pyth: the update's posted slot; swap: the trade's slot); null for overrides. */
  slot: number | null;
  /** Unix seconds of the data (Pyth: publish time; swap: the trade's block time); null when unknown. */
  time: number | null;
}

export interface TokenInfo {
  symbol?: string;
  name?: string;
  logoUri?: string;
  /** The USD price (`price.usd`), absent when none is known or usable. */
  priceUsd?: number;
  price?: TokenPrice;
}

export interface LookupOptions {
  /** false: names, symbols and logos only (no price lookups). Default true. */
  prices?: boolean;
}

export interface TokenRegistry {
  /** What is known of each mint asked for (absent = nothing known). */
  lookup(mints: string[], opts?: LookupOptions): Promise<Map<string, TokenInfo>>;
}

/**
 * Registry over a JSON file, re-read at most every `checkMs` when its modification time changes. `overlay` entries
 * (e.g. the demo chain's tokens) win over the file's, field by field.
 */
export function createFileTokenRegistry(path: string, opts: { checkMs?: number; overlay?: Map<string, TokenInfo> } = {}): TokenRegistry {
  const checkMs = opts.checkMs ?? 2000;
  let data = new Map<string, TokenInfo>();
  let mtime = -1;
  let checkedAt = 0;
  const load = () => {
    const now = Date.now();
    if (now - checkedAt < checkMs) return;
    checkedAt = now;
    try {
      const st = statSync(path);
      if (st.mtimeMs === mtime) return;
      data = parseRegistry(JSON.parse(readFileSync(path, 'utf8')), path);
      mtime = st.mtimeMs;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        data = new Map();
        mtime = -1;
        return;
      }
      // A half-written or invalid file keeps the previous contents.
    }
  };
  return {
    async lookup(mints) {
      load();
      const out = new Map<string, TokenInfo>();
      for (const m of mints) {
        const o = opts.overlay?.get(m);
        const f = data.get(m);
        const v = o && f ? { ...f, ...o } : (o ?? f);
        if (v) out.set(m, v.priceUsd !== undefined ? { ...v, price: { usd: v.priceUsd, source: 'override', slot: null, time: null } } : v);
      }
      return out;
    },
  };
}

export function parseRegistry(json: unknown, source = 'token registry'): Map<string, TokenInfo> {
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new Error(`${source}: expected an object keyed by mint`);
  const out = new Map<string, TokenInfo>();
  for (const [mint, v] of Object.entries(json as Record<string, unknown>)) {
    if (mint.startsWith('$') || !v || typeof v !== 'object') continue;
    const o = v as Record<string, unknown>;
    const info: TokenInfo = {};
    if (typeof o.symbol === 'string') info.symbol = o.symbol;
    if (typeof o.name === 'string') info.name = o.name;
    if (typeof o.logoUri === 'string') info.logoUri = o.logoUri;
    if (typeof o.priceUsd === 'number' && Number.isFinite(o.priceUsd) && o.priceUsd >= 0) info.priceUsd = o.priceUsd;
    out.set(mint, info);
  }
  return out;
}
