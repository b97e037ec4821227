/** The ingest pipeline's preparation steps: folding a block with its compressed-NFT rows, history as blocks, and the token-account context a fold needs. */
import type { Block, NormalizedTx } from '../core/model.js';
import type { Db } from '../store/db.js';
import type { BlockUpdate } from '../store/block-update.js';
import { queryMintDecimals, queryTokenAccountInfo } from '../store/tokens.js';
import { BUBBLEGUM_PROGRAM, parseBubblegumTransaction } from '../parsers/bubblegum/index.js';
import { foldBlock, tokenAccountsNeeded, type FoldContext, type ParsedTx } from './fold-block.js';
import { cnftRows } from './fold-cnft.js';

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
  const need = [...new Set(parsed.flatMap(tokenAccountsNeeded))];
  if (!need.length) return { tokenAccounts: new Map(), mintDecimals: new Map() };
  if (before) await before;
  const tokenAccounts = await queryTokenAccountInfo(db, need);
  const mints = [...new Set([...tokenAccounts.values()].flatMap((t) => (t.mint && t.decimals == null ? [t.mint] : [])))];
  const mintDecimals = await queryMintDecimals(db, mints);
  return { tokenAccounts, mintDecimals };
}
