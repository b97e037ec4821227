/** The ingest pipeline's preparation steps: folding a block with its compressed-NFT rows, history as blocks, and the token-account context a fold needs. */
import type { Block, NormalizedTx } from '../core/model.js';
import type { Db } from '../store/db.js';
import type { BlockUpdate } from '../store/block-update.js';
import { queryMintDecimals, queryTokenAccountInfo } from '../store/tokens.js';
import { BUBBLEGUM_PROGRAM, parseBubblegumTransaction } from '../parsers/bubblegum/index.js';
import { foldBlock, tokenAccountsNeeded, type FoldContext, type ParsedTx } from './fold-block.js';
import { cnftRows } from './fold-cnft.js';
import { foldAccounts } from './fold-accounts.js';

/**
 * The block's update: its transactions folded, plus the compressed-NFT rows of those that invoke Bubblegum. Their
 * Bubblegum events are parsed once, for the rows and for the fold's classification (which otherwise parses every
 * transaction again: most of the classification's time in a mainnet block with cNFT mints).
 */
export function foldWithCnft(b: Block, parsed: ParsedTx[], ctx: FoldContext): BlockUpdate {
  const bubblegum = parsed.filter(({ tx }) => tx.accountKeys.includes(BUBBLEGUM_PROGRAM)).map(({ tx }) => ({ tx, events: parseBubblegumTransaction(tx) }));
  const u = foldBlock(b, parsed, { ...ctx, cnftEventsByTx: new Map(bubblegum.map(({ tx, events }) => [tx, events])) });
  const cnft = cnftRows(bubblegum);
  u.cnftAssets.push(...cnft.assets);
  u.cnftNodes.push(...cnft.nodes);
  u.cnftSignatures.push(...cnft.signatures);
  return u;
}

/**
 * The batch's updates, block by block. This runs while the previous batch's write is in flight: between blocks it
 * lets the write's SQL responses be handled, so that its next statement goes out within one block's fold rather
 * than after the whole batch's (PostgreSQL would wait for this thread meanwhile).
 */
export async function foldBlocks(blocks: Block[], parsed: ParsedTx[][], ctx: FoldContext): Promise<BlockUpdate[]> {
  const out: BlockUpdate[] = [];
  for (let i = 0; i < blocks.length; i++) {
    if (i) await yieldToEventLoop();
    const b = blocks[i];
    const u = foldWithCnft(b, parsed[i], ctx);
    // Account states fetched after the block (live mode): their rows carry their own slot/write-version guards,
    // so adding them to the block's update is order-safe.
    if (b.accounts?.length) {
      const into = u as unknown as Record<string, unknown>;
      for (const [k, v] of Object.entries(foldAccounts(b.accounts))) if (Array.isArray(v) && v.length) (into[k] as unknown[]).push(...v);
    }
    out.push(u);
  }
  return out;
}

/** Lets pending I/O callbacks (SQL responses) run before continuing. */
export const yieldToEventLoop = () => new Promise<void>((r) => setImmediate(r));

/** Historical transactions as one pseudo-block per slot (their position in the slot is unknown). */
export function historyBlocks(txs: NormalizedTx[]): Block[] {
  const bySlot = new Map<number, NormalizedTx[]>();
  for (const tx of txs) {
    const list = bySlot.get(tx.slot);
    if (list) list.push(tx);
    else bySlot.set(tx.slot, [tx]);
  }
  return [...bySlot].map(([slot, list]) => ({
    slot, parentSlot: null, blockhash: null, previousBlockhash: null, blockTime: list[0].blockTime, blockHeight: null, transactions: list,
  }));
}

/**
 * Owners/mints of token accounts that events name but transaction meta does not describe. `before` (an earlier
 * batch's write) is awaited before querying, and only when there is something to look up.
 */
export async function lookupContext(db: Db, parsed: ParsedTx[], before?: Promise<unknown> | null): Promise<FoldContext> {
  return lookupNeeded(db, [...new Set(parsed.flatMap(tokenAccountsNeeded))], before);
}

async function lookupNeeded(db: Db, need: string[], before?: Promise<unknown> | null): Promise<FoldContext> {
  if (!need.length) return { tokenAccounts: new Map(), mintDecimals: new Map() };
  if (before) await before;
  const tokenAccounts = await queryTokenAccountInfo(db, need);
  const mints = [...new Set([...tokenAccounts.values()].flatMap((t) => (t.mint && t.decimals == null ? [t.mint] : [])))];
  const mintDecimals = await queryMintDecimals(db, mints);
  return { tokenAccounts, mintDecimals };
}

/**
 * The token-account context of `parsed` as {@link lookupContext} reads it after `before` (the write in flight), and
 * `fold(ctx)` of it. With a write in flight and something to look up, the rows are also read at once and the batch
 * folded with them while the write runs (the fold is pure: the same context gives the same update); after the
 * write they are read again, and the batch is folded again only if they changed (an account the write created or
 * changed), or if the lookup or fold ahead threw. So the fold's work overlaps with PostgreSQL's write of the
 * previous batch instead of following it, for one extra lookup (a few ms) per batch.
 */
export async function foldAhead<T>(
  db: Db,
  parsed: ParsedTx[],
  before: Promise<unknown> | null | undefined,
  fold: (ctx: FoldContext) => T | Promise<T>,
): Promise<{ ctx: FoldContext; updates: T }> {
  const need = [...new Set(parsed.flatMap(tokenAccountsNeeded))];
  let ahead: { ctx: FoldContext; updates: T } | null = null;
  if (before && need.length) {
    try {
      const early = await lookupNeeded(db, need);
      ahead = { ctx: early, updates: await fold(early) };
    } catch {
      // Whatever failed ahead is done again, in order, below.
      ahead = null;
    }
  }
  const ctx = await lookupNeeded(db, need, before);
  return { ctx, updates: ahead && sameContext(ahead.ctx, ctx) ? ahead.updates : await fold(ctx) };
}

/** Whether two contexts hold the same rows (the token accounts' program too, which the lookup also returns). */
function sameContext(a: FoldContext, b: FoldContext): boolean {
  if (a.tokenAccounts.size !== b.tokenAccounts.size || a.mintDecimals.size !== b.mintDecimals.size) return false;
  for (const [k, v] of a.tokenAccounts) {
    const w = b.tokenAccounts.get(k) as unknown as Record<string, unknown> | undefined;
    if (!w || ROW_FIELDS.some((f) => w[f] !== (v as unknown as Record<string, unknown>)[f])) return false;
  }
  for (const [k, v] of a.mintDecimals) if (b.mintDecimals.get(k) !== v) return false;
  return true;
}

const ROW_FIELDS = ['owner', 'mint', 'decimals', 'program'] as const;
