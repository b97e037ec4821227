/**
 * The `raw` webhook payload of one transaction: the JSON-RPC `getTransaction` result in `json` encoding (compat-facts
 * §5: `{blockTime, indexWithinBlock, meta{...}, slot, transaction{message{...}, signatures}, version}`), rebuilt
 * from the normalised model. Pure.
 *
 * Facts the model does not keep come out empty rather than invented: `rewards` is `[]` (per-transaction rewards are
 * not recorded), `returnData` is absent; records without execution meta (Geyser-style) have `meta: null`.
 */
import type { CompiledInstruction, NormalizedTx, TokenBalance } from '../core/model.js';
import { bytesToBase58, uiAmount } from '../core/encoding.js';

export interface RawInstruction {
  programIdIndex: number;
  accounts: number[];
  data: string;
  stackHeight: number | null;
}

export interface RawTokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  programId?: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string };
}

export interface RawTransaction {
  blockTime: number | null;
  indexWithinBlock: number | null;
  slot: number;
  version: 'legacy' | 0;
  meta: {
    err: unknown;
    status: { Ok: null } | { Err: unknown };
    fee: number;
    preBalances: number[];
    postBalances: number[];
    preTokenBalances: RawTokenBalance[];
    postTokenBalances: RawTokenBalance[];
    innerInstructions: { index: number; instructions: RawInstruction[] }[];
    loadedAddresses: { writable: string[]; readonly: string[] };
    logMessages: string[];
    rewards: unknown[];
    computeUnitsConsumed?: number;
  } | null;
  transaction: {
    signatures: string[];
    message: {
      accountKeys: string[];
      header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number } | null;
      recentBlockhash: string | null;
      instructions: RawInstruction[];
      addressTableLookups?: { accountKey: string; writableIndexes: number[]; readonlyIndexes: number[] }[];
    };
  };
}

function instruction(ix: CompiledInstruction): RawInstruction {
  return { programIdIndex: ix.programIdIndex, accounts: ix.accounts, data: bytesToBase58(ix.data), stackHeight: ix.stackHeight };
}

/** "1234.5" from raw units without going through floating point. */
function uiString(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const neg = amount < 0n;
  const s = (neg ? -amount : amount).toString().padStart(decimals + 1, '0');
  const frac = s.slice(-decimals).replace(/0+$/, '');
  const whole = s.slice(0, -decimals);
  return `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

function tokenBalance(b: TokenBalance): RawTokenBalance {
  return {
    accountIndex: b.accountIndex,
    mint: b.mint,
    ...(b.owner ? { owner: b.owner } : {}),
    ...(b.programId ? { programId: b.programId } : {}),
    uiTokenAmount: { amount: b.amount.toString(), decimals: b.decimals, uiAmount: uiAmount(b.amount, b.decimals), uiAmountString: uiString(b.amount, b.decimals) },
  };
}

/** The RPC-shaped transaction with meta. */
export function rawTransaction(tx: NormalizedTx): RawTransaction {
  const m = tx.meta;
  const loadedWritable = tx.addressTableLookups.reduce((n, l) => n + l.writableIndexes.length, 0);
  const loaded = tx.accountKeys.slice(tx.staticKeyCount);
  const message: RawTransaction['transaction']['message'] = {
    accountKeys: tx.accountKeys.slice(0, tx.staticKeyCount),
    header: tx.header,
    recentBlockhash: tx.recentBlockhash,
    instructions: tx.instructions.map(instruction),
  };
  if (tx.version === 0) message.addressTableLookups = tx.addressTableLookups;
  return {
    blockTime: tx.blockTime,
    indexWithinBlock: tx.indexInBlock,
    slot: tx.slot,
    version: tx.version,
    meta: m
      ? {
          err: m.err ?? null,
          status: m.err == null ? { Ok: null } : { Err: m.err },
          fee: Number(m.fee),
          preBalances: m.preBalances.map(Number),
          postBalances: m.postBalances.map(Number),
          preTokenBalances: (m.preTokenBalances ?? []).map(tokenBalance),
          postTokenBalances: (m.postTokenBalances ?? []).map(tokenBalance),
          innerInstructions: tx.innerInstructions.map((g) => ({ index: g.index, instructions: g.instructions.map(instruction) })),
          loadedAddresses: { writable: loaded.slice(0, loadedWritable), readonly: loaded.slice(loadedWritable) },
          logMessages: tx.logMessages ?? [],
          rewards: [],
          ...(m.computeUnitsConsumed !== null ? { computeUnitsConsumed: Number(m.computeUnitsConsumed) } : {}),
        }
      : null,
    transaction: { signatures: tx.signatures, message },
  };
}
