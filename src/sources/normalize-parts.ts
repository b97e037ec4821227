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
  return a.map((e, i) => {
    const ep = `${p}[${i}]`;
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
  });
}

/** Every index an instruction or token balance holds must point into `accountKeys`. */
export function checkIndexes(tx: NormalizedTx, p: string): void {
  const n = tx.accountKeys.length;
  const check = (i: number, where: string) => {
    if (i >= n) throw new FieldError(where, `refers to account ${i} but the transaction has ${n} account keys`);
  };
  tx.instructions.forEach((ix, i) => {
    check(ix.programIdIndex, `${p}instructions[${i}].programIdIndex`);
    ix.accounts.forEach((a) => check(a, `${p}instructions[${i}].accounts`));
  });
  tx.innerInstructions.forEach((g, i) => {
    if (g.index >= tx.instructions.length) {
      throw new FieldError(`${p}meta.innerInstructions[${i}].index`, `refers to missing instruction ${g.index}`);
    }
    g.instructions.forEach((ix, j) => {
      check(ix.programIdIndex, `${p}meta.innerInstructions[${i}].instructions[${j}].programIdIndex`);
      ix.accounts.forEach((a) => check(a, `${p}meta.innerInstructions[${i}].instructions[${j}].accounts`));
    });
  });
  for (const list of [tx.meta?.preTokenBalances, tx.meta?.postTokenBalances]) {
    list?.forEach((b) => check(b.accountIndex, `${p}meta.tokenBalances.accountIndex`));
  }
}
