/**
 * A compact transport for a normalised block between threads (the replay decode workers → the ingester).
 *
 * Structured clone of a `Block` rebuilds every value of it one by one in the receiving thread (93,000 objects,
 * arrays, strings, amounts and buffers for the recorded mainnet block: every address a string of its own, every
 * instruction's data a buffer of its own): 24-36 ms per block on the ingester's thread. A packed block is a handful
 * of flat arrays instead: one table of the block's distinct strings (addresses, signatures, blockhashes), one array
 * of numbers, one of u64 amounts and one byte buffer holding every instruction's data. {@link unpackBlock} rebuilds
 * the same `Block` from them (5-14 ms) with the block's strings shared and each instruction's data a view into the
 * one buffer; until then the packed form is cheap to hold.
 *
 * Exact: `unpackBlock(packBlock(b))` equals `b` field for field. A block with something the packing cannot hold
 * exactly (an amount outside u64) is not packed: {@link packBlock} returns null and the caller sends it as is.
 */
import type { Block, CompiledInstruction, InnerInstructions, NormalizedTx, TokenBalance } from '../core/model.js';

/** The block's own fields as they are; its transactions packed. */
export interface PackedBlock extends Omit<Block, 'transactions'> {
  txCount: number;
  strings: string[];
  nums: Float64Array;
  bigs: BigUint64Array;
  data: Uint8Array;
  logs: (string[] | null)[];
  errs: unknown[];
}

const U64_MAX = (1n << 64n) - 1n;
const NULL = -1;

class Unpackable extends Error {}

/** A growable Float64Array (a plain array of numbers costs a conversion at the end and more to grow). */
class Numbers {
  private a = new Float64Array(1 << 14);
  private n = 0;
  push(v: number): void {
    if (this.n === this.a.length) {
      const b = new Float64Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
  done(): Float64Array {
    return this.a.slice(0, this.n);
  }
}

/** The same for u64 amounts. */
class Amounts {
  private a = new BigUint64Array(1 << 12);
  private n = 0;
  push(v: bigint): void {
    if (this.n === this.a.length) {
      const b = new BigUint64Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
  done(): BigUint64Array {
    return this.a.slice(0, this.n);
  }
}

/** `block` packed, or null when one of its values does not fit the packing (send the block itself then). */
export function packBlock(block: Block): PackedBlock | null {
  const strings: string[] = [];
  const ids = new Map<string, number>();
  const nums = new Numbers();
  const bigs = new Amounts();
  const chunks: Uint8Array[] = [];
  let dataLength = 0;
  const logs: (string[] | null)[] = [];
  const errs: unknown[] = [];

  const str = (s: string | null): void => {
    if (s === null) {
      nums.push(NULL);
      return;
    }
    let id = ids.get(s);
    if (id === undefined) {
      id = strings.length;
      strings.push(s);
      ids.set(s, id);
    }
    nums.push(id);
  };
  const num = (n: number | null): void => {
    nums.push(n === null ? Number.NaN : n);
  };
  const big = (b: bigint): void => {
    if (typeof b !== 'bigint' || b < 0n || b > U64_MAX) throw new Unpackable();
    bigs.push(b);
  };
  const numbers = (list: number[]): void => {
    nums.push(list.length);
    for (const n of list) nums.push(n);
  };
  const instruction = (ix: CompiledInstruction): void => {
    nums.push(ix.programIdIndex);
    numbers(ix.accounts);
    nums.push(ix.data.length);
    chunks.push(ix.data);
    dataLength += ix.data.length;
    num(ix.stackHeight);
  };
  const tokenBalances = (list: TokenBalance[] | null): void => {
    if (list === null) {
      nums.push(NULL);
      return;
    }
    nums.push(list.length);
    for (const t of list) {
      nums.push(t.accountIndex);
      str(t.mint);
      str(t.owner);
      str(t.programId);
      big(t.amount);
      nums.push(t.decimals);
    }
  };

  try {
    for (const tx of block.transactions) {
      str(tx.signature);
      nums.push(tx.signatures.length);
      for (const s of tx.signatures) str(s);
      nums.push(tx.slot);
      num(tx.indexInBlock);
      num(tx.blockTime);
      nums.push(tx.version === 'legacy' ? NULL : tx.version);
      nums.push(tx.accountKeys.length);
      for (const k of tx.accountKeys) str(k);
      nums.push(tx.staticKeyCount);
      if (tx.header === null) nums.push(0);
      else {
        nums.push(1);
        nums.push(tx.header.numRequiredSignatures);
        nums.push(tx.header.numReadonlySignedAccounts);
        nums.push(tx.header.numReadonlyUnsignedAccounts);
      }
      str(tx.recentBlockhash);
      nums.push(tx.addressTableLookups.length);
      for (const l of tx.addressTableLookups) {
        str(l.accountKey);
        numbers(l.writableIndexes);
        numbers(l.readonlyIndexes);
      }
      nums.push(tx.instructions.length);
      for (const ix of tx.instructions) instruction(ix);
      nums.push(tx.innerInstructions.length);
      for (const inner of tx.innerInstructions) {
        nums.push(inner.index);
        nums.push(inner.instructions.length);
        for (const ix of inner.instructions) instruction(ix);
      }
      nums.push(tx.isVote ? 1 : 0);
      logs.push(tx.logMessages);
      const meta = tx.meta;
      if (meta === null) {
        nums.push(0);
        continue;
      }
      nums.push(1);
      if (meta.err === null) nums.push(0);
      else {
        nums.push(1);
        errs.push(meta.err);
      }
      big(meta.fee);
      nums.push(meta.preBalances.length);
      for (const b of meta.preBalances) big(b);
      nums.push(meta.postBalances.length);
      for (const b of meta.postBalances) big(b);
      tokenBalances(meta.preTokenBalances);
      tokenBalances(meta.postTokenBalances);
      if (meta.computeUnitsConsumed === null) nums.push(0);
      else {
        nums.push(1);
        big(meta.computeUnitsConsumed);
      }
    }
  } catch (e) {
    if (e instanceof Unpackable) return null;
    throw e;
  }

  const data = new Uint8Array(dataLength);
  let at = 0;
  for (const c of chunks) {
    data.set(c, at);
    at += c.length;
  }
  const { transactions, ...fields } = block;
  return { ...fields, txCount: transactions.length, strings, nums: nums.done(), bigs: bigs.done(), data, logs, errs };
}

/** The buffers of `p`, to hand over (transfer) instead of copying when posting it to another thread. */
export function packedBuffers(p: PackedBlock): ArrayBuffer[] {
  return [p.nums.buffer, p.bigs.buffer, p.data.buffer] as ArrayBuffer[];
}

/** The block {@link packBlock} packed. */
export function unpackBlock(p: PackedBlock): Block {
  const { txCount, strings, nums, bigs, data, logs, errs, ...fields } = p;
  let n = 0;
  let b = 0;
  let d = 0;
  let e = 0;
  const str = (): string => strings[nums[n++]];
  const strOrNull = (): string | null => {
    const id = nums[n++];
    return id === NULL ? null : strings[id];
  };
  const num = (): number | null => {
    const v = nums[n++];
    return Number.isNaN(v) ? null : v;
  };
  const numbers = (): number[] => {
    const len = nums[n++];
    const out = new Array<number>(len);
    for (let i = 0; i < len; i++) out[i] = nums[n++];
    return out;
  };
  const instruction = (): CompiledInstruction => {
    const programIdIndex = nums[n++];
    const accounts = numbers();
    const len = nums[n++];
    const bytes = data.subarray(d, d + len);
    d += len;
    return { programIdIndex, accounts, data: bytes, stackHeight: num() };
  };
  const bigList = (): bigint[] => {
    const len = nums[n++];
    const out = new Array<bigint>(len);
    for (let i = 0; i < len; i++) out[i] = bigs[b++];
    return out;
  };
  const tokenBalances = (): TokenBalance[] | null => {
    const len = nums[n++];
    if (len === NULL) return null;
    const out = new Array<TokenBalance>(len);
    for (let i = 0; i < len; i++) {
      const accountIndex = nums[n++];
      const mint = str();
      const owner = strOrNull();
      const programId = strOrNull();
      out[i] = { accountIndex, mint, owner, programId, amount: bigs[b++], decimals: nums[n++] };
    }
    return out;
  };

  const transactions = new Array<NormalizedTx>(txCount);
  for (let t = 0; t < txCount; t++) {
    const signature = str();
    const sigCount = nums[n++];
    const signatures = new Array<string>(sigCount);
    for (let i = 0; i < sigCount; i++) signatures[i] = str();
    const slot = nums[n++];
    const indexInBlock = num();
    const blockTime = num();
    const version = nums[n++] === NULL ? ('legacy' as const) : (0 as const);
    const keyCount = nums[n++];
    const accountKeys = new Array<string>(keyCount);
    for (let i = 0; i < keyCount; i++) accountKeys[i] = str();
    const staticKeyCount = nums[n++];
    const header =
      nums[n++] === 0
        ? null
        : { numRequiredSignatures: nums[n++], numReadonlySignedAccounts: nums[n++], numReadonlyUnsignedAccounts: nums[n++] };
    const recentBlockhash = strOrNull();
    const lookupCount = nums[n++];
    const addressTableLookups = new Array<NormalizedTx['addressTableLookups'][number]>(lookupCount);
    for (let i = 0; i < lookupCount; i++) {
      const accountKey = str();
      const writableIndexes = numbers();
      addressTableLookups[i] = { accountKey, writableIndexes, readonlyIndexes: numbers() };
    }
    const ixCount = nums[n++];
    const instructions = new Array<CompiledInstruction>(ixCount);
    for (let i = 0; i < ixCount; i++) instructions[i] = instruction();
    const innerCount = nums[n++];
    const innerInstructions = new Array<InnerInstructions>(innerCount);
    for (let i = 0; i < innerCount; i++) {
      const index = nums[n++];
      const count = nums[n++];
      const list = new Array<CompiledInstruction>(count);
      for (let j = 0; j < count; j++) list[j] = instruction();
      innerInstructions[i] = { index, instructions: list };
    }
    const isVote = nums[n++] === 1;
    let meta: NormalizedTx['meta'] = null;
    if (nums[n++] === 1) {
      const err = nums[n++] === 1 ? errs[e++] : null;
      const fee = bigs[b++];
      const preBalances = bigList();
      const postBalances = bigList();
      const preTokenBalances = tokenBalances();
      const postTokenBalances = tokenBalances();
      const computeUnitsConsumed = nums[n++] === 1 ? bigs[b++] : null;
      meta = { err, fee, preBalances, postBalances, preTokenBalances, postTokenBalances, computeUnitsConsumed };
    }
    transactions[t] = {
      signature, signatures, slot, indexInBlock, blockTime, version, accountKeys, staticKeyCount, header, recentBlockhash,
      addressTableLookups, instructions, innerInstructions, logMessages: logs[t], meta, isVote,
    };
  }
  if (n !== nums.length || b !== bigs.length || d !== data.length || e !== errs.length) {
    throw new Error(`packed block ${p.slot}: ${nums.length - n} numbers, ${bigs.length - b} amounts, ${data.length - d} data bytes left over`);
  }
  return { ...fields, transactions };
}
