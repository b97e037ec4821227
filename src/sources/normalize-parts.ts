/**
 * Building blocks shared by the normalisers in `normalize-rpc.ts`: instructions, inner instructions, meta and
 * token balances, index checks. Kept separate only to keep files small; not part of the public surface.
 */
import type { CompiledInstruction, InnerInstructions, NormalizedTx, TokenBalance, TxMeta } from '../core/model.js';
import {
  FieldError,
  address,
  arr,
  base58Bytes,
  indexArray,
  isObject,
  obj,
  optArr,
  optU64,
  optUint,
  str,
  u64,
  u64Array,
  uint,
  type JsonObject,
} from './fields.js';
import { isAddress } from '../core/encoding.js';

/** Runs `f`, prefixing any field error with what was being read (`invalid getBlock result (slot 5): …`). */
export function labelled<T>(label: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof FieldError) e.message = `invalid ${label}: ${e.message}`;
    throw e;
  }
}

/**
 * `{programIdIndex, accounts, data (base58), stackHeight?}`. `stackHeight` of an outer instruction is 1 by
 * definition; for inner ones an absent value (or 0, which Geyser records write when unknown) becomes null.
 */
export function compiledInstruction(v: unknown, p: string, outerHeight: number | null): CompiledInstruction {
  const ix = obj(v, p);
  if (ix.programIdIndex === undefined && ix.programId !== undefined) {
    throw new FieldError(p, 'is a parsed instruction (jsonParsed encoding is not supported; use base64 or json)');
  }
  const programIdIndex = uint(ix.programIdIndex, `${p}.programIdIndex`);
  if (programIdIndex > 255) throw new FieldError(`${p}.programIdIndex`, 'must be an account index (0-255)');
  let stackHeight: number | null = outerHeight;
  if (outerHeight === null) {
    const h = optUint(ix.stackHeight, `${p}.stackHeight`);
    stackHeight = h === 0 ? null : h;
  }
  return {
    programIdIndex,
    accounts: indexArray(ix.accounts, `${p}.accounts`),
    data: base58Bytes(ix.data, `${p}.data`),
    stackHeight,
  };
}

/** `meta.innerInstructions`; null/absent (not recorded by old nodes) becomes an empty list. */
export function normalizeInner(v: unknown, p: string): InnerInstructions[] {
  return (optArr(v, p) ?? []).map((g, i) => {
    const o = obj(g, `${p}[${i}]`);
    return {
      index: uint(o.index, `${p}[${i}].index`),
      instructions: arr(o.instructions, `${p}[${i}].instructions`).map((ix, j) =>
        compiledInstruction(ix, `${p}[${i}].instructions[${j}]`, null),
      ),
    };
  });
}

export function strings(v: unknown, p: string): string[] | null {
  const a = optArr(v, p);
  return a ? a.map((s, i) => str(s, `${p}[${i}]`)) : null;
}

export function normalizeMeta(m: JsonObject, p: string, keyCount: number): TxMeta {
  const preBalances = u64Array(m.preBalances, `${p}preBalances`);
  const postBalances = u64Array(m.postBalances, `${p}postBalances`);
  for (const [name, list] of [['preBalances', preBalances], ['postBalances', postBalances]] as const) {
    if (list.length !== keyCount) {
      throw new FieldError(`${p}${name}`, `has ${list.length} entries for ${keyCount} account keys`);
    }
  }
  return {
    err: m.err ?? null,
    fee: u64(m.fee, `${p}fee`),
    preBalances,
    postBalances,
    preTokenBalances: tokenBalances(m.preTokenBalances, `${p}preTokenBalances`),
    postTokenBalances: tokenBalances(m.postTokenBalances, `${p}postTokenBalances`),
    computeUnitsConsumed: optU64(m.computeUnitsConsumed, `${p}computeUnitsConsumed`),
  };
}

const absent = (v: unknown) => v === undefined || v === null || v === '';

/** Token balances; `owner`/`programId` are absent in records from before they were added (→ null). */
export function tokenBalances(v: unknown, p: string): TokenBalance[] | null {
  const a = optArr(v, p);
  if (!a) return null;
  const out = new Array<TokenBalance>(a.length);
  for (let i = 0; i < a.length; i++) out[i] = plainTokenBalance(a[i]) ?? tokenBalance(a[i], `${p}[${i}]`);
  return out;
}

const U64_DIGITS = /^\d{1,20}$/;

/**
 * A token balance as RPC nodes write it, read without building the path of each field (null for anything else,
 * which {@link tokenBalance} then reads, or names the field that is wrong).
 */
function plainTokenBalance(e: unknown): TokenBalance | null {
  if (!isObject(e) || !isObject(e.uiTokenAmount)) return null;
  const { accountIndex, mint, owner, programId } = e;
  const { amount, decimals } = e.uiTokenAmount;
  if (typeof accountIndex !== 'number' || !Number.isSafeInteger(accountIndex) || accountIndex < 0) return null;
  if (!isAddress(mint)) return null;
  if (!absent(owner) && !isAddress(owner)) return null;
  if (!absent(programId) && !isAddress(programId)) return null;
  if (typeof amount !== 'string' || !U64_DIGITS.test(amount)) return null;
  if (typeof decimals !== 'number' || !Number.isSafeInteger(decimals) || decimals < 0) return null;
  return {
    accountIndex,
    mint,
    owner: absent(owner) ? null : (owner as string),
    programId: absent(programId) ? null : (programId as string),
    amount: BigInt(amount),
    decimals,
  };
}

function tokenBalance(e: unknown, ep: string): TokenBalance {
  const o = obj(e, ep);
  const ui = obj(o.uiTokenAmount, `${ep}.uiTokenAmount`);
  return {
    accountIndex: uint(o.accountIndex, `${ep}.accountIndex`),
    mint: address(o.mint, `${ep}.mint`),
    owner: absent(o.owner) ? null : address(o.owner, `${ep}.owner`),
    programId: absent(o.programId) ? null : address(o.programId, `${ep}.programId`),
    amount: u64(ui.amount, `${ep}.uiTokenAmount.amount`),
    decimals: uint(ui.decimals, `${ep}.uiTokenAmount.decimals`),
  };
}

/**
 * Every index an instruction or token balance holds must point into `accountKeys`. (Plain loops: the path of each
 * index is only built for the one that is out of range.)
 */
export function checkIndexes(tx: NormalizedTx, p: string): void {
  const n = tx.accountKeys.length;
  const fail = (i: number, where: string): never => {
    throw new FieldError(where, `refers to account ${i} but the transaction has ${n} account keys`);
  };
  for (let i = 0; i < tx.instructions.length; i++) {
    const ix = tx.instructions[i];
    if (ix.programIdIndex >= n) fail(ix.programIdIndex, `${p}instructions[${i}].programIdIndex`);
    for (const a of ix.accounts) if (a >= n) fail(a, `${p}instructions[${i}].accounts`);
  }
  for (let i = 0; i < tx.innerInstructions.length; i++) {
    const g = tx.innerInstructions[i];
    if (g.index >= tx.instructions.length) {
      throw new FieldError(`${p}meta.innerInstructions[${i}].index`, `refers to missing instruction ${g.index}`);
    }
    for (let j = 0; j < g.instructions.length; j++) {
      const ix = g.instructions[j];
      if (ix.programIdIndex >= n) fail(ix.programIdIndex, `${p}meta.innerInstructions[${i}].instructions[${j}].programIdIndex`);
      for (const a of ix.accounts) if (a >= n) fail(a, `${p}meta.innerInstructions[${i}].instructions[${j}].accounts`);
    }
  }
  for (const list of [tx.meta?.preTokenBalances, tx.meta?.postTokenBalances]) {
    for (const b of list ?? []) if (b.accountIndex >= n) fail(b.accountIndex, `${p}meta.tokenBalances.accountIndex`);
  }
}
