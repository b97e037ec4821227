/**
 * Price rows of the fold. Pure: no database, clock or network.
 *
 * Swap prices (`swapPriceRows`): from a SWAP transaction's `events.swap` (src/enhanced/swaps.ts), one candidate per
 * DEX hop (`innerSwaps`: the token transfers one swap instruction invoked), so the price is the pool's own rate,
 * whatever route, aggregator or arbitrage it was part of. A hop counts when
 *  - it moved exactly two mints, each in one direction only (a hop with a third mint, e.g. a two-hop instruction or
 *    a fee paid in another token, is skipped),
 *  - one of them is a quote: USDC or USDT (quote USD: both count as one US dollar) or wrapped SOL (quote SOL), and
 *    the other is not the same kind of quote (a USDC↔USDT hop says nothing; a SOL↔USDC hop prices SOL in USD),
 *  - it is not dust: at least SWAP_PRICE_MIN_USD of USDC/USDT, or SWAP_PRICE_MIN_SOL of SOL, changed hands.
 * The price is quote amount / token amount (UI units, the hop's transfers summed per mint; a fee the DEX takes in
 * the input token inside the hop is part of the input). Of several hops of one mint the last one counts
 * (the store keeps the latest per mint by (pos, hop)). Fixed thresholds keep the fold deterministic: the SOL
 * minimum is in SOL, not in USD at a SOL price the fold would have to look up.
 * Not covered: swaps whose DEX moves native SOL without token transfers (e.g. Pump.fun's bonding curve) have no
 * SOL leg in their hop and give no price.
 *
 * Pyth prices (`pythPriceRows`): fully verified PriceUpdateV2 accounts among account updates (a partially verified
 * update was checked against fewer Wormhole guardian signatures and is ignored).
 */
import type { AccountUpdate, NormalizedTx } from '../core/model.js';
import { NATIVE_MINT } from '../core/programs.js';
import type { InnerSwap, SwapEvent } from '../enhanced/types.js';
import { decodePythAccount } from '../parsers/pyth/price-update.js';
import type { PythPriceRow, SwapPriceRow } from '../store/prices.js';

export const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
export const USDT_MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
/** Smallest USDC/USDT amount of a hop that prices a token. */
export const SWAP_PRICE_MIN_USD = 10;
/** Smallest SOL amount of a hop that prices a token against SOL. */
export const SWAP_PRICE_MIN_SOL = 0.1;

const QUOTES: ReadonlyMap<string, 'USD' | 'SOL'> = new Map([
  [USDC_MINT, 'USD'],
  [USDT_MINT, 'USD'],
  [NATIVE_MINT, 'SOL'],
]);

interface HopTrade {
  mint: string;
  quote: 'USD' | 'SOL';
  quoteMint: string;
  baseAmount: number;
  quoteAmount: number;
}

/** The trade one DEX hop states, or null when it prices nothing (see the module comment). */
export function hopTrade(hop: InnerSwap): HopTrade | null {
  const side = new Map<string, 'in' | 'out'>();
  const amount = new Map<string, number>();
  for (const [list, s] of [[hop.tokenInputs, 'in'], [hop.tokenOutputs, 'out']] as const) {
    for (const t of list) {
      const seen = side.get(t.mint);
      if (seen !== undefined && seen !== s) return null;
      side.set(t.mint, s);
      amount.set(t.mint, (amount.get(t.mint) ?? 0) + t.tokenAmount);
    }
  }
  if (side.size !== 2) return null;
  const [a, b] = [...side.keys()];
  if (side.get(a) === side.get(b)) return null;
  const qa = QUOTES.get(a);
  const qb = QUOTES.get(b);
  let base: string;
  let quoteMint: string;
  if (qa === undefined && qb === undefined) return null;
  if (qa !== undefined && qb !== undefined) {
    if (qa === qb) return null; // USDC↔USDT
    [base, quoteMint] = qa === 'SOL' ? [a, b] : [b, a]; // SOL priced in USD
  } else if (qa !== undefined) [base, quoteMint] = [b, a];
  else [base, quoteMint] = [a, b];
  const quote = QUOTES.get(quoteMint)!;
  const baseAmount = amount.get(base)!;
  const quoteAmount = amount.get(quoteMint)!;
  if (!(baseAmount > 0) || !(quoteAmount > 0)) return null;
  if (quoteAmount < (quote === 'USD' ? SWAP_PRICE_MIN_USD : SWAP_PRICE_MIN_SOL)) return null;
  if (!Number.isFinite(quoteAmount / baseAmount)) return null;
  return { mint: base, quote, quoteMint, baseAmount, quoteAmount };
}

/** Swap price rows of one SWAP transaction (`pos`: its position, `slot·10⁶ + index in block`). */
export function swapPriceRows(tx: NormalizedTx, swap: SwapEvent, pos: number): SwapPriceRow[] {
  const out: SwapPriceRow[] = [];
  swap.innerSwaps.forEach((hop, ord) => {
    const t = hopTrade(hop);
    if (!t) return;
    out.push({
      ...t,
      price: t.quoteAmount / t.baseAmount,
      slot: tx.slot,
      pos,
      ord,
      signature: tx.signature,
      program: hop.programInfo.account,
      blockTime: tx.blockTime,
    });
  });
  return out;
}

/** Pyth price rows of account updates: fully verified PriceUpdateV2 accounts of the Pyth Solana Receiver. */
export function pythPriceRows(updates: readonly AccountUpdate[]): PythPriceRow[] {
  const out: PythPriceRow[] = [];
  for (const a of updates) {
    const p = decodePythAccount(a);
    if (!p || p.verification.kind !== 'full') continue;
    out.push({
      feedId: p.feedId,
      account: p.account,
      price: p.price,
      conf: p.conf,
      exponent: p.exponent,
      publishTime: p.publishTime,
      prevPublishTime: p.prevPublishTime,
      emaPrice: p.emaPrice,
      emaConf: p.emaConf,
      postedSlot: p.postedSlot,
      slot: p.slot,
    });
  }
  return out;
}
