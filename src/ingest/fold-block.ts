/**
 * foldBlock: a block's transactions (and their parsed events) → one BlockUpdate, grouped by table family.
 * Pure: no database, clock or network. Facts the block itself cannot give (owners of token accounts a
 * meta-less record touches) come in through `known`, prefetched by the pipeline.
 */
import type { Block, NormalizedTx } from '../core/model.js';
import { isWritable } from '../core/model.js';
import { NATIVE_DECIMALS, NATIVE_MINT, SYSTEM_PROGRAM } from '../core/programs.js';
import { unknownIndexTiebreak, unknownTxIndex } from '../core/tx-position.js';
import { classifyTypeAndSwap } from '../enhanced/classify.js';
import type { SwapEvent } from '../enhanced/types.js';
import type { DomainEvent } from '../parsers/events.js';
import type { CnftEvent } from '../parsers/bubblegum/index.js';
import type { BalanceChange, BlockUpdate, SolBalanceRow, TokenAccountPatch, WalletTransferRow } from '../store/block-update.js';
import { emptyUpdate, posOf } from '../store/block-update.js';
import { indexedTokenDeltas } from '../parsers/balances.js';
import { isInfrastructureAddress } from '../core/infrastructure.js';
import { transactionMemo } from '../parsers/memo.js';
import { swapPriceRows } from './fold-prices.js';

/** What the store already knows about a token account. */
export interface KnownTokenAccount {
  owner: string | null;
  mint: string | null;
  decimals: number | null;
}

export interface FoldContext {
  /** Token accounts referenced by events without meta to resolve them. */
  tokenAccounts: Map<string, KnownTokenAccount>;
  /** Decimals of mints referenced by events without meta. */
  mintDecimals: Map<string, number>;
  /**
   * Bubblegum events of every transaction that names the Bubblegum program (parsed once by the caller, which writes
   * their rows too); others have none. Absent: classification parses each transaction itself.
   */
  cnftEventsByTx?: ReadonlyMap<NormalizedTx, readonly CnftEvent[]>;
}

export const emptyContext = (): FoldContext => ({ tokenAccounts: new Map(), mintDecimals: new Map() });

export interface ParsedTx {
  tx: NormalizedTx;
  events: DomainEvent[];
}

/**
 * Token accounts an event names, so the pipeline can prefetch their owners when meta does not tell. The accounts
 * meta's token balances name are gathered only for a transaction with a token transfer (runs for every transaction
 * of a batch; 45 of the 444 non-vote ones of the recorded mainnet block have one).
 */
export function tokenAccountsNeeded(p: ParsedTx): string[] {
  let inMeta: Set<string> | null = null;
  const out: string[] = [];
  for (const e of p.events) {
    if (e.kind !== 'token.transfer') continue;
    if (!inMeta) {
      inMeta = new Set<string>();
      const meta = p.tx.meta;
      for (const list of [meta?.preTokenBalances, meta?.postTokenBalances]) for (const b of list ?? []) inMeta.add(p.tx.accountKeys[b.accountIndex]);
    }
    if (!inMeta.has(e.source)) out.push(e.source);
    if (!inMeta.has(e.destination)) out.push(e.destination);
  }
  return out;
}

export function foldBlock(block: Block, parsed: ParsedTx[], ctx: FoldContext = emptyContext()): BlockUpdate {
  const u = emptyUpdate(block.slot);
  const seen: BlockSeen = { solBalance: new Map(), mintFacts: new Map() };
  if (block.blockhash !== null)
    u.block = {
      slot: block.slot,
      parentSlot: block.parentSlot,
      blockhash: block.blockhash,
      blockTime: block.blockTime,
      blockHeight: block.blockHeight,
      txCount: block.transactions.length,
    };
  for (const p of parsed) {
    u.slot = Math.max(u.slot ?? p.tx.slot, p.tx.slot);
    foldTx(u, p, ctx, seen);
  }
  return u;
}

/**
 * Rows a block's fold has made already, so that repeats are not made again: each transaction reports the balance of
 * every account it names and the mint of every token balance it holds, and a mainnet block names the same ones over
 * and over (block 254170887: 8,184 balances of 2,965 accounts, 2,176 mint rows of 162 mints). The writers keep one row
 * per key anyway (the newest balance, `solBalancesStatement`; the mint's first known facts, `mergePatches`), so the
 * rows left out change nothing that is written.
 */
interface BlockSeen {
  /** Per address, its balance row (replaced in place by a newer one). */
  solBalance: Map<string, SolBalanceRow>;
  /** Per mint, the decimals and program of its last mint row as `"<decimals> <program or empty>"`. */
  mintFacts: Map<string, string>;
}

type Rel = 1 | 2 | 3;
type Change = { amount: bigint; decimals: number };

function foldTx(u: BlockUpdate, { tx, events }: ParsedTx, ctx: FoldContext, seen: BlockSeen): void {
  const txIndex = tx.indexInBlock ?? unknownTxIndex(tx.signature);
  const pos = posOf(tx.slot, tx.indexInBlock ?? unknownIndexTiebreak(tx.signature));
  const meta = tx.meta;
  const keys = tx.accountKeys;
  const n = keys.length;
  const { type: enhancedType, swap } = enhancedTypeOf(tx, events, ctx);
  u.transactions.push({
    signature: tx.signature,
    slot: tx.slot,
    txIndex,
    blockTime: tx.blockTime,
    fee: meta ? meta.fee : null,
    feePayer: keys[0],
    err: meta?.err ?? null,
    hasMeta: meta !== null,
    enhancedType,
    memo: transactionMemo(tx),
  });

  /** Keys that are wallets/accounts rather than programs being called or sysvars. */
  const accountKey = accountKeyFlags(tx);

  // Relation per address: 2 or 3 for token owners, and for a direct (relation 1) address its account index i as
  // -(i + 1), so the written flag of its link can be read off by index (negative: it wins over 2 and 3 as 1 would);
  // and balance changes per address (per mint).
  const relation = new Map<string, number>();
  const changes = new Map<string, Map<string, Change>>();
  const addChange = (addr: string, mint: string, amount: bigint, decimals: number) => {
    if (amount === 0n) return;
    let m = changes.get(addr);
    if (!m) changes.set(addr, (m = new Map()));
    const cur = m.get(mint);
    m.set(mint, { amount: cur === undefined ? amount : cur.amount + amount, decimals });
  };
  const written = writtenKeys(tx);
  for (let i = 0; i < n; i++) if (accountKey[i]) relation.set(keys[i], -(i + 1));

  // Native balances and their changes.
  if (meta) {
    const post = meta.postBalances;
    for (let i = 0; i < n; i++) {
      if (!accountKey[i] || post[i] === undefined) continue;
      const had = seen.solBalance.get(keys[i]);
      if (had === undefined) {
        const row = { address: keys[i], lamports: post[i], pos };
        seen.solBalance.set(keys[i], row);
        u.solBalances.push(row);
      } else if (pos >= had.pos) {
        had.lamports = post[i];
        had.pos = pos;
      }
    }
    // = solDeltas(tx), in accountKeys order
    const pre = meta.preBalances;
    const m = Math.min(pre.length, post.length, n);
    for (let i = 0; i < m; i++) {
      if (pre[i] === post[i]) continue;
      const k = keys[i];
      if (relation.has(k)) addChange(k, NATIVE_MINT, post[i] - pre[i], NATIVE_DECIMALS);
    }
  }

  // Token account facts known from the transaction itself (meta balances, then initialisations in it).
  const deltas = indexedTokenDeltas(tx);
  const taInfo = new Map<string, KnownTokenAccount & { program: string | null }>();
  for (const d of deltas) {
    taInfo.set(d.account, { owner: d.owner, mint: d.mint, decimals: d.decimals, program: d.programId });
    const facts = `${d.decimals} ${d.programId ?? ''}`;
    if (seen.mintFacts.get(d.mint) !== facts) {
      seen.mintFacts.set(d.mint, facts);
      u.mints.push(d.programId ? { address: d.mint, decimals: d.decimals, program: d.programId } : { address: d.mint, decimals: d.decimals });
    }
    if (d.owner) {
      const r: 2 | 3 = d.changed ? 2 : 3;
      const cur = relation.get(d.owner);
      if (cur === undefined || r < cur) relation.set(d.owner, r);
      addChange(d.owner, d.mint, d.delta, d.decimals);
    }
  }
  for (const e of events)
    if (e.kind === 'token.initAccount' && !taInfo.has(e.account))
      taInfo.set(e.account, { owner: e.owner, mint: e.mint, decimals: null, program: e.program });
  const resolve = (account: string) => taInfo.get(account) ?? ctx.tokenAccounts.get(account) ?? null;

  for (const [address, r] of relation) {
    const c = changes.get(address);
    let list: BalanceChange[] | null = null;
    if (c) {
      list = [];
      for (const [mint, v] of c) list.push({ mint, amount: v.amount.toString(), decimals: v.decimals });
    }
    const direct = r < 0;
    u.addressLinks.push({ address, slot: tx.slot, txIndex, relation: direct ? 1 : (r as Rel), changes: list, enhancedType, writable: direct ? written(-r - 1) : null });
  }

  foldEvents(u, tx, events, pos, txIndex, resolve, ctx);
  // Prices of the tokens it swapped against USDC/USDT/SOL (./fold-prices.ts).
  if (swap) u.swapPrices.push(...swapPriceRows(tx, swap, pos));

  // Absolute token balances after the transaction come last so they win over same-position event patches.
  if (meta && !meta.err && meta.postTokenBalances) {
    const postTb = meta.postTokenBalances;
    for (const d of deltas) {
      let inPost = false;
      for (const b of postTb) if (b.accountIndex === d.index && b.mint === d.mint) (inPost = true);
      const closed = !inPost;
      u.tokenAccounts.push({
        address: d.account,
        mint: d.mint,
        owner: d.owner,
        program: d.programId,
        closed,
        ownerPos: pos,
        amount: closed ? 0n : d.post,
        amountPos: pos,
      });
    }
  }
}

/**
 * The enhanced type of a transaction (the classifier's `type`, what history `?type=` filters on), and its swap event
 * when it is a SWAP. A transaction the classifier cannot handle gets none (it matches no type filter) instead of
 * stopping ingestion.
 */
function enhancedTypeOf(tx: NormalizedTx, events: DomainEvent[], ctx: FoldContext): { type: string | null; swap: SwapEvent | null } {
  const known = ctx.cnftEventsByTx;
  try {
    return classifyTypeAndSwap(tx, events, known ? { ...ctx, cnftEvents: known.get(tx) ?? [] } : ctx);
  } catch {
    return { type: null, swap: null };
  }
}

/**
 * Per account index: whether the transaction wrote that account (the `writable` flag of its address links). A
 * successful transaction (or one recorded without meta: its writes are not known to have been rolled back) wrote
 * its writable keys (`isWritable`: static ones by the header, then the writable keys loaded from lookup tables); a
 * failed one only its fee payer and, for a durable-nonce transaction, the nonce account (the runtime charges the
 * fee and advances the nonce even then). null for every key without a message header.
 */
function writtenKeys(tx: NormalizedTx): (i: number) => boolean | null {
  if (!tx.header) return () => null;
  if (tx.meta && tx.meta.err !== null && tx.meta.err !== undefined) {
    const nonce = nonceAccountIndex(tx);
    return (i) => i === 0 || i === nonce;
  }
  return (i) => isWritable(tx, i) === true;
}

/** The account index of the nonce a durable-nonce transaction advances (its first instruction is the System program's AdvanceNonceAccount), else -1. */
function nonceAccountIndex(tx: NormalizedTx): number {
  const ix = tx.instructions[0];
  if (!ix || tx.accountKeys[ix.programIdIndex] !== SYSTEM_PROGRAM || ix.data.length < 4 || ix.accounts.length < 1) return -1;
  const d = ix.data;
  const tag = d[0] | (d[1] << 8) | (d[2] << 16) | (d[3] << 24);
  return tag === 4 ? ix.accounts[0] : -1;
}

/**
 * Per account index: true for keys that are wallets/accounts, false for sysvars, infrastructure programs and
 * invoked programs that are not (known to be) writable. Same as `isWritable` per key, computed once per tx.
 */
function accountKeyFlags(tx: NormalizedTx): boolean[] {
  const keys = tx.accountKeys;
  const n = keys.length;
  const invoked = new Set<number>();
  for (const ix of tx.instructions) invoked.add(ix.programIdIndex);
  for (const g of tx.innerInstructions) for (const ix of g.instructions) invoked.add(ix.programIdIndex);
  const out = new Array<boolean>(n);
  let loadedWritable = -1;
  for (let i = 0; i < n; i++) {
    if (isInfrastructureAddress(keys[i])) {
      out[i] = false;
      continue;
    }
    if (!invoked.has(i)) {
      out[i] = true;
      continue;
    }
    let w: boolean | null;
    if (i >= tx.staticKeyCount && tx.header) {
      if (loadedWritable < 0) loadedWritable = tx.addressTableLookups.reduce((s, l) => s + l.writableIndexes.length, 0);
      w = i - tx.staticKeyCount < loadedWritable;
    } else w = isWritable(tx, i);
    out[i] = w === true;
  }
  return out;
}

function foldEvents(
  u: BlockUpdate,
  tx: NormalizedTx,
  events: DomainEvent[],
  pos: number,
  txIndex: number,
  resolve: (a: string) => KnownTokenAccount | null,
  ctx: FoldContext,
): void {
  const ta = (p: TokenAccountPatch) => u.tokenAccounts.push(p);
  for (let ord = 0; ord < events.length; ord++) {
    const e = events[ord];
    switch (e.kind) {
      case 'sol.transfer': {
        if (e.lamports <= 0n) break;
        u.transfers.push(transferRow(tx, txIndex, ord, e.from, 'o', e.to, NATIVE_MINT, e.lamports, NATIVE_DECIMALS));
        u.transfers.push(transferRow(tx, txIndex, ord, e.to, 'i', e.from, NATIVE_MINT, e.lamports, NATIVE_DECIMALS));
        if (e.from !== e.to)
          u.funding.push({ wallet: e.to, funder: e.from, lamports: e.lamports, signature: tx.signature, slot: tx.slot, txIndex, ord, blockTime: tx.blockTime });
        break;
      }
      case 'token.transfer': {
        const src = resolve(e.source);
        const dst = resolve(e.destination);
        const mint = e.mint ?? src?.mint ?? dst?.mint ?? null;
        const decimals = e.decimals ?? src?.decimals ?? dst?.decimals ?? (mint ? ctx.mintDecimals.get(mint) : undefined) ?? null;
        if (!mint || decimals === null || e.amount <= 0n) break;
        const from = src?.owner ?? null;
        const to = dst?.owner ?? null;
        if (from) u.transfers.push(transferRow(tx, txIndex, ord, from, 'o', to ?? e.destination, mint, e.amount, decimals));
        if (to) u.transfers.push(transferRow(tx, txIndex, ord, to, 'i', from ?? e.source, mint, e.amount, decimals));
        break;
      }
      case 'token.initMint':
        u.mints.push({
          address: e.mint,
          program: e.program,
          decimals: e.decimals,
          initPos: pos,
          mintAuthority: e.mintAuthority,
          mintAuthorityPos: pos,
          freezeAuthority: e.freezeAuthority,
          freezeAuthorityPos: pos,
          supplyBase: 0n,
          supplyPos: pos,
          supplyOrd: ord,
        });
        break;
      case 'token.mintTo':
        u.supplyChanges.push({ mint: e.mint, signature: tx.signature, ord, pos, delta: e.amount });
        break;
      case 'token.burn':
        u.supplyChanges.push({ mint: e.mint, signature: tx.signature, ord, pos, delta: -e.amount });
        break;
      case 'token.initAccount':
        ta({ address: e.account, mint: e.mint, owner: e.owner, program: e.program, closed: false, ownerPos: pos, amount: 0n, amountPos: pos, delegate: null, delegatedAmount: null, delegatePos: pos, frozen: false, frozenPos: pos });
        break;
      case 'token.closeAccount':
        ta({ address: e.account, closed: true, ownerPos: pos, amount: 0n, amountPos: pos });
        break;
      case 'token.approve':
        ta({ address: e.account, delegate: e.delegate, delegatedAmount: e.amount, delegatePos: pos });
        break;
      case 'token.revoke':
        ta({ address: e.account, delegate: null, delegatedAmount: null, delegatePos: pos });
        break;
      case 'token.freeze':
      case 'token.thaw':
        ta({ address: e.account, frozen: e.kind === 'token.freeze', frozenPos: pos });
        break;
      case 'token.setAuthority':
        if (e.authorityType === 'mintTokens') u.mints.push({ address: e.target, mintAuthority: e.newAuthority, mintAuthorityPos: pos });
        else if (e.authorityType === 'freezeAccount') u.mints.push({ address: e.target, freezeAuthority: e.newAuthority, freezeAuthorityPos: pos });
        else if (e.authorityType === 'accountOwner') ta({ address: e.target, owner: e.newAuthority, ownerPos: pos });
        else if (e.authorityType === 'closeAccount') ta({ address: e.target, closeAuthority: e.newAuthority, closeAuthorityPos: pos });
        else u.tokenExtensions.push({ target: e.target, extension: `authority:${e.authorityType}`, data: { authority: e.newAuthority }, pos });
        break;
      case 'token.extension':
        u.tokenExtensions.push({ target: e.target, extension: e.extension, data: { action: e.action, ...e.data }, pos });
        break;
      default:
        break;
    }
  }
}

/** One wallet's side of a movement (a plain literal: every row gets the same object shape). */
function transferRow(
  tx: NormalizedTx,
  txIndex: number,
  ord: number,
  wallet: string,
  direction: 'i' | 'o',
  counterparty: string,
  mint: string,
  amount: bigint,
  decimals: number,
): WalletTransferRow {
  return { wallet, slot: tx.slot, txIndex, signature: tx.signature, ord, direction, counterparty, mint, amount, decimals, blockTime: tx.blockTime };
}
