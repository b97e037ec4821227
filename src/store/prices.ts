/**
 * Table family "prices" (migration 024): the latest Pyth price update per feed (`pyth_prices`) and the latest
 * qualifying swap price per mint (`swap_prices`). Both are written with the block (or account batch) that carries
 * them, as guarded upserts: a row is replaced only by one at least as new (Pyth: (publish_time, posted_slot); swaps:
 * (pos, ord)), so replays and out-of-order writes (backfill beside live ingestion) end with the newest.
 * Staleness and precedence are decided when reading (src/pricing/chain-prices.ts), not here.
 */
import type { Queryable } from './db.js';
import { bulkInsertStatement, dedupeBy, type Statement } from './bulk.js';

export interface PythPriceRow {
  feedId: string;
  account: string;
  price: bigint;
  conf: bigint;
  exponent: number;
  publishTime: bigint;
  prevPublishTime: bigint;
  emaPrice: bigint;
  emaConf: bigint;
  postedSlot: bigint;
  slot: number;
}

export interface SwapPriceRow {
  mint: string;
  quote: 'USD' | 'SOL';
  quoteMint: string;
  /** Quote units per whole token. */
  price: number;
  baseAmount: number;
  quoteAmount: number;
  slot: number;
  pos: number;
  ord: number;
  signature: string;
  program: string;
  blockTime: number | null;
}

const newerPyth = (a: PythPriceRow, b: PythPriceRow) =>
  a.publishTime !== b.publishTime ? a.publishTime > b.publishTime : a.postedSlot >= b.postedSlot;

export function pythPricesStatement(rows: readonly PythPriceRow[]): Statement | null {
  return bulkInsertStatement(
    'pyth_prices',
    [
      { name: 'feed_id', type: 'text', get: (r: PythPriceRow) => r.feedId },
      { name: 'account', type: 'text', get: (r) => r.account },
      { name: 'price', type: 'bigint', get: (r) => r.price },
      { name: 'conf', type: 'numeric', get: (r) => r.conf },
      { name: 'exponent', type: 'int', get: (r) => r.exponent },
      { name: 'publish_time', type: 'bigint', get: (r) => r.publishTime },
      { name: 'prev_publish_time', type: 'bigint', get: (r) => r.prevPublishTime },
      { name: 'ema_price', type: 'bigint', get: (r) => r.emaPrice },
      { name: 'ema_conf', type: 'numeric', get: (r) => r.emaConf },
      { name: 'posted_slot', type: 'bigint', get: (r) => r.postedSlot },
      { name: 'slot', type: 'bigint', get: (r) => r.slot },
    ],
    dedupeBy(rows, (r) => r.feedId, newerPyth),
    `ON CONFLICT (feed_id) DO UPDATE SET account = EXCLUDED.account, price = EXCLUDED.price, conf = EXCLUDED.conf,
       exponent = EXCLUDED.exponent, publish_time = EXCLUDED.publish_time, prev_publish_time = EXCLUDED.prev_publish_time,
       ema_price = EXCLUDED.ema_price, ema_conf = EXCLUDED.ema_conf, posted_slot = EXCLUDED.posted_slot, slot = EXCLUDED.slot
     WHERE (EXCLUDED.publish_time, EXCLUDED.posted_slot) >= (t.publish_time, t.posted_slot)`,
  );
}

const newerSwap = (a: SwapPriceRow, b: SwapPriceRow) => (a.pos !== b.pos ? a.pos > b.pos : a.ord >= b.ord);

export function swapPricesStatement(rows: readonly SwapPriceRow[]): Statement | null {
  return bulkInsertStatement(
    'swap_prices',
    [
      { name: 'mint', type: 'text', get: (r: SwapPriceRow) => r.mint },
      { name: 'quote', type: 'text', get: (r) => r.quote },
      { name: 'quote_mint', type: 'text', get: (r) => r.quoteMint },
      { name: 'price', type: 'float8', get: (r) => r.price },
      { name: 'base_amount', type: 'float8', get: (r) => r.baseAmount },
      { name: 'quote_amount', type: 'float8', get: (r) => r.quoteAmount },
      { name: 'slot', type: 'bigint', get: (r) => r.slot },
      { name: 'pos', type: 'bigint', get: (r) => r.pos },
      { name: 'ord', type: 'int', get: (r) => r.ord },
      { name: 'signature', type: 'text', get: (r) => r.signature },
      { name: 'program', type: 'text', get: (r) => r.program },
      { name: 'block_time', type: 'bigint', get: (r) => r.blockTime },
    ],
    dedupeBy(rows, (r) => r.mint, newerSwap),
    `ON CONFLICT (mint) DO UPDATE SET quote = EXCLUDED.quote, quote_mint = EXCLUDED.quote_mint, price = EXCLUDED.price,
       base_amount = EXCLUDED.base_amount, quote_amount = EXCLUDED.quote_amount, slot = EXCLUDED.slot, pos = EXCLUDED.pos,
       ord = EXCLUDED.ord, signature = EXCLUDED.signature, program = EXCLUDED.program, block_time = EXCLUDED.block_time
     WHERE (EXCLUDED.pos, EXCLUDED.ord) >= (t.pos, t.ord)`,
  );
}

/** A stored Pyth price, as read back. */
export interface StoredPythPrice {
  feedId: string;
  account: string;
  price: bigint;
  conf: bigint;
  exponent: number;
  publishTime: number;
  postedSlot: number;
  slot: number;
}

/** A stored swap price, as read back (its position in the chain is only the write guard). */
export type StoredSwapPrice = Omit<SwapPriceRow, 'pos' | 'ord'>;

/** Stored Pyth prices of the given feeds (absent = never seen). */
export async function queryPythPrices(q: Queryable, feedIds: readonly string[]): Promise<Map<string, StoredPythPrice>> {
  const out = new Map<string, StoredPythPrice>();
  if (!feedIds.length) return out;
  const { rows } = await q.query<{
    feed_id: string; account: string; price: string; conf: string; exponent: number; publish_time: string; posted_slot: string; slot: string;
  }>(
    `SELECT feed_id, account, price::text AS price, conf::text AS conf, exponent, publish_time::text AS publish_time,
            posted_slot::text AS posted_slot, slot::text AS slot
       FROM pyth_prices WHERE feed_id = ANY($1::text[])`,
    [[...new Set(feedIds)]],
  );
  for (const r of rows)
    out.set(r.feed_id, {
      feedId: r.feed_id, account: r.account, price: BigInt(r.price), conf: BigInt(r.conf), exponent: r.exponent,
      publishTime: Number(r.publish_time), postedSlot: Number(r.posted_slot), slot: Number(r.slot),
    });
  return out;
}

/** Stored swap prices of the given mints (absent = no qualifying swap indexed). */
export async function querySwapPrices(q: Queryable, mints: readonly string[]): Promise<Map<string, StoredSwapPrice>> {
  const out = new Map<string, StoredSwapPrice>();
  if (!mints.length) return out;
  const { rows } = await q.query<{
    mint: string; quote: 'USD' | 'SOL'; quote_mint: string; price: number; base_amount: number; quote_amount: number;
    slot: string; signature: string; program: string; block_time: string | null;
  }>(
    `SELECT mint, quote, quote_mint, price, base_amount, quote_amount, slot::text AS slot, signature, program,
            block_time::text AS block_time
       FROM swap_prices WHERE mint = ANY($1::text[])`,
    [[...new Set(mints)]],
  );
  for (const r of rows)
    out.set(r.mint, {
      mint: r.mint, quote: r.quote, quoteMint: r.quote_mint, price: Number(r.price), baseAmount: Number(r.base_amount),
      quoteAmount: Number(r.quote_amount), slot: Number(r.slot), signature: r.signature, program: r.program,
      blockTime: r.block_time === null ? null : Number(r.block_time),
    });
  return out;
}
