/**
 * Swaps: a transaction that executes a swap instruction of a known DEX or aggregator (SWAP_PROGRAMS), at any
 * invocation depth. Pure.
 *
 * `events.swap` is the user's view, the user being the fee payer:
 *  - `nativeInput`/`nativeOutput`: the fee payer's lamport change without the fee, plus the change of its wrapped-SOL
 *    token accounts, without the rent of token accounts of the fee payer opened (or given back when closed) in the
 *    transaction. Other lamports the fee payer moved in the same transaction (e.g. a tip) are included;
 *  - `tokenInputs`/`tokenOutputs`: the net change of every non-SOL token account the fee payer owns (pre/post token
 *    balances), decreases as inputs and increases as outputs, amounts unsigned;
 *  - `innerSwaps`: one entry per DEX swap instruction (aggregator routes excluded), with the token transfers it
 *    invoked; a transfer is an input when it leaves a fee payer's account, an output when it reaches one, otherwise
 *    it follows the mint of the hop's first transfer. `tokenFees`/`nativeFees` are left empty.
 * The verdict's source is the outermost recognised swap program (the aggregator when one routed the swap).
 */
import type { Address, NormalizedTx } from '../core/model.js';
import { indexedTokenDeltas } from '../parsers/balances.js';
import type { DomainEvent, TracedInstruction } from '../parsers/events.js';
import { SWAP_PROGRAM_BY_ID, WRAPPED_SOL_MINT, type SwapProgram } from './programs.js';
import { tokenMovements, type TokenTransferOptions } from './transfers.js';
import type { InnerSwap, NativeBalanceChange, SwapEvent, SwapTokenAmount, TransactionSource } from './types.js';

export interface SwapHop {
  program: SwapProgram;
  instructionName: string;
  ix: TracedInstruction;
  /** Position of the instruction in the walked list. */
  position: number;
}

/** The swap instructions of the transaction, in execution order. */
export function swapHops(ixs: readonly TracedInstruction[]): SwapHop[] {
  const out: SwapHop[] = [];
  ixs.forEach((ix, position) => {
    const program = SWAP_PROGRAM_BY_ID.get(ix.programId);
    const name = program?.swap(ix.data);
    if (program && name) out.push({ program, instructionName: name, ix, position });
  });
  return out;
}

export interface SwapResult {
  source: TransactionSource;
  event: SwapEvent;
}

export function swapEvent(
  tx: NormalizedTx,
  ixs: readonly TracedInstruction[],
  hops: readonly SwapHop[],
  events: readonly DomainEvent[],
  opts: TokenTransferOptions,
): SwapResult {
  const user = tx.accountKeys[0] ?? '';
  const { tokenInputs, tokenOutputs, nativeDelta } = userDeltas(tx, user);
  const native = (n: bigint): NativeBalanceChange => ({ account: user, amount: (n < 0n ? -n : n).toString() });
  const outermost = hops.reduce((a, b) => (rank(b) < rank(a) ? b : a));
  return {
    source: outermost.program.source,
    event: {
      nativeInput: nativeDelta < 0n ? native(nativeDelta) : null,
      nativeOutput: nativeDelta > 0n ? native(nativeDelta) : null,
      tokenInputs,
      tokenOutputs,
      tokenFees: [],
      nativeFees: [],
      innerSwaps: hops.filter((h) => !h.program.aggregator).map((h) => innerSwap(tx, ixs, h, hops, events, opts, user)),
    },
  };
}

/** Outer instructions first, then by position. */
const rank = (h: SwapHop) => (h.ix.path.inner === null ? -1 : h.position);

function userDeltas(tx: NormalizedTx, user: Address): { tokenInputs: SwapTokenAmount[]; tokenOutputs: SwapTokenAmount[]; nativeDelta: bigint } {
  const meta = tx.meta;
  const tokenInputs: SwapTokenAmount[] = [];
  const tokenOutputs: SwapTokenAmount[] = [];
  if (!meta) return { tokenInputs, tokenOutputs, nativeDelta: 0n };
  const payerIndex = 0;
  let nativeDelta = (meta.postBalances[payerIndex] ?? 0n) - (meta.preBalances[payerIndex] ?? 0n) + meta.fee;
  const seen = new Set<number>();
  for (const d of indexedTokenDeltas(tx)) {
    if (d.owner !== user) continue;
    const preLamports = meta.preBalances[d.index] ?? 0n;
    const postLamports = meta.postBalances[d.index] ?? 0n;
    if (!seen.has(d.index)) {
      seen.add(d.index);
      // Rent of a token account of the user opened (pre 0) or closed (post 0) here is not part of the swap.
      const wrapped = (a: bigint) => (d.mint === WRAPPED_SOL_MINT ? a : 0n);
      if (preLamports === 0n && postLamports > 0n) nativeDelta += postLamports - wrapped(d.post);
      if (postLamports === 0n && preLamports > 0n) nativeDelta -= preLamports - wrapped(d.pre);
    }
    if (d.mint === WRAPPED_SOL_MINT) {
      nativeDelta += d.delta;
      continue;
    }
    if (d.delta === 0n) continue;
    const entry: SwapTokenAmount = {
      userAccount: user,
      tokenAccount: d.account,
      mint: d.mint,
      rawTokenAmount: { tokenAmount: (d.delta < 0n ? -d.delta : d.delta).toString(), decimals: d.decimals },
    };
    (d.delta < 0n ? tokenInputs : tokenOutputs).push(entry);
  }
  return { tokenInputs, tokenOutputs, nativeDelta };
}

/** The instructions a hop invoked: the following ones deeper in the call stack (stack heights when recorded). */
function children(tx: NormalizedTx, ixs: readonly TracedInstruction[], hop: SwapHop, hops: readonly SwapHop[]): Set<string> {
  const key = (ix: TracedInstruction) => `${ix.path.outer}:${ix.path.inner}`;
  const out = new Set<string>();
  const inner = tx.innerInstructions.filter((g) => g.index === hop.ix.path.outer).flatMap((g) => g.instructions);
  const height = (i: number | null) => (i === null ? 1 : (inner[i]?.stackHeight ?? null));
  const own = height(hop.ix.path.inner);
  const hopPositions = new Set(hops.map((h) => h.position));
  for (let p = hop.position + 1; p < ixs.length; p++) {
    const ix = ixs[p];
    if (ix.path.outer !== hop.ix.path.outer || ix.path.inner === null) break;
    const h = height(ix.path.inner);
    if (own !== null && h !== null) {
      if (h <= own) break;
    } else if (hopPositions.has(p)) break; // no stack heights: up to the next swap instruction
    out.add(key(ix));
  }
  return out;
}

function innerSwap(
  tx: NormalizedTx,
  ixs: readonly TracedInstruction[],
  hop: SwapHop,
  hops: readonly SwapHop[],
  events: readonly DomainEvent[],
  opts: TokenTransferOptions,
  user: Address,
): InnerSwap {
  const inside = children(tx, ixs, hop, hops);
  const transfers = events.filter((e) => e.kind === 'token.transfer' && inside.has(`${e.path.outer}:${e.path.inner}`));
  const moved = tokenMovements(transfers, opts).map((m) => m.transfer);
  const firstMint = moved[0]?.mint;
  const tokenInputs = moved.filter((t) => (t.fromUserAccount === user ? true : t.toUserAccount === user ? false : t.mint === firstMint));
  const tokenOutputs = moved.filter((t) => !tokenInputs.includes(t));
  return {
    tokenInputs,
    tokenOutputs,
    tokenFees: [],
    nativeFees: [],
    programInfo: { source: hop.program.source, account: hop.program.programId, programName: hop.program.programName, instructionName: hop.instructionName },
  };
}
