/**
 * Token registry: symbol, name, logo and USD price by mint. Pluggable (`TokenRegistry`); the default reads a
 * JSON file and reloads it when it changes, so prices can be refreshed by any external job writing the file.
 *
 * File format: `{ "<mint>": { "symbol"?, "name"?, "logoUri"?, "priceUsd"? }, ... }` (keys starting with `$` are
 * comments/metadata and ignored).
 */
import { readFileSync, statSync } from 'node:fs';

export interface TokenInfo {
  symbol?: string;
  name?: string;
  logoUri?: string;
  priceUsd?: number;
}

export interface TokenRegistry {
  /** What is known of each mint asked for (absent = nothing known). */
  lookup(mints: string[]): Promise<Map<string, TokenInfo>>;
}

/** Registry over a JSON file, re-read at most every `checkMs` when its modification time changes. */
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
        const v = opts.overlay?.get(m) ?? data.get(m);
        if (v) out.set(m, v);
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
