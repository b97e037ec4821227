/**
 * The Pyth feed list (SOLGATE_PRICE_FEEDS_FILE, default data/pyth-feeds.json): which Pyth X/USD feed prices which
 * mint, and the PriceUpdateV2 account a serve/ingest process reads it from.
 *
 * File format: `{ "<mint>": { "feedId": "<64 hex>", "account": "<base58>", "symbol"?, "feed"? }, ... }` (keys
 * starting with `$` are comments). Read once at start; a missing or invalid file stops start-up with a message (StartupError).
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StartupError } from '../core/errors.js';

export interface PythFeed {
  mint: string;
  /** Pyth's price feed id, 64 lowercase hex characters. */
  feedId: string;
  /** The PriceUpdateV2 account holding the feed (the sponsored shard-0 account on mainnet). */
  account: string;
  symbol?: string;
  /** Pyth's name of the feed, e.g. `SOL/USD`. */
  feed?: string;
}

/** Feeds by mint. */
export type PythFeeds = ReadonlyMap<string, PythFeed>;

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

export function parsePythFeeds(json: unknown, source = 'Pyth feed list'): Map<string, PythFeed> {
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new Error(`${source}: expected an object keyed by mint`);
  const out = new Map<string, PythFeed>();
  for (const [mint, v] of Object.entries(json as Record<string, unknown>)) {
    if (mint.startsWith('$')) continue;
    const o = (v ?? {}) as Record<string, unknown>;
    const feedId = typeof o.feedId === 'string' ? o.feedId.toLowerCase().replace(/^0x/, '') : '';
    if (!BASE58.test(mint)) throw new Error(`${source}: "${mint}" is not a mint address`);
    if (!/^[0-9a-f]{64}$/.test(feedId)) throw new Error(`${source}: ${mint}: feedId must be 64 hex characters`);
    if (typeof o.account !== 'string' || !BASE58.test(o.account)) throw new Error(`${source}: ${mint}: account must be a base58 address`);
    const feed: PythFeed = { mint, feedId, account: o.account };
    if (typeof o.symbol === 'string') feed.symbol = o.symbol;
    if (typeof o.feed === 'string') feed.feed = o.feed;
    out.set(mint, feed);
  }
  return out;
}

/** The package's own directory (src/pricing and dist/pricing are both two levels below it). */
const PACKAGE_DIR = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Reads the feed list. A relative path not found from the working directory is looked up in the package's own
 * directory, so the bundled `data/pyth-feeds.json` is found whatever directory `solgate` runs in.
 */
export function loadPythFeeds(path: string): Map<string, PythFeed> {
  if (!isAbsolute(path) && !existsSync(path) && existsSync(join(PACKAGE_DIR, path))) path = join(PACKAGE_DIR, path);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new StartupError(`SOLGATE_PRICE_FEEDS_FILE: cannot read ${path}: ${(e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new StartupError(`SOLGATE_PRICE_FEEDS_FILE: ${path} is not JSON: ${(e as Error).message}`);
  }
  try {
    return parsePythFeeds(json, `SOLGATE_PRICE_FEEDS_FILE ${path}`);
  } catch (e) {
    throw new StartupError((e as Error).message);
  }
}
