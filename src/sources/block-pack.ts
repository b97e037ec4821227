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

/**
 * The packing state of one block. Its steps are methods rather than closures made per block: V8 compiled the
 * optimised code of such closures again for each new closure, i.e. for most blocks (`--trace-opt` on a replay of 100
 * mainnet blocks: the instruction step 22 times; docs/benchmarks.md#replay-fourteenth).
 */
class Packer {
  readonly strings: string[] = [];
  private readonly ids = new Map<string, number>();
  readonly nums = new Numbers();
  readonly bigs = new Amounts();
  readonly chunks: Uint8Array[] = [];
  dataLength = 0;
  readonly logs: (string[] | null)[] = [];
  readonly errs: unknown[] = [];

  str(s: string | null): void {
    if (s === null) {
      this.nums.push(NULL);
      return;
    }
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.strings.length;
      this.strings.push(s);
      this.ids.set(s, id);
    }
    this.nums.push(id);
  }

  num(n: number | null): void {
    this.nums.push(n === null ? Number.NaN : n);
  }

  big(b: bigint): void {
    if (typeof b !== 'bigint' || b < 0n || b > U64_MAX) throw new Unpackable();
    this.bigs.push(b);
  }

  numbers(list: number[]): void {
    this.nums.push(list.length);
    for (const n of list) this.nums.push(n);
  }

  instruction(ix: CompiledInstruction): void {
    this.nums.push(ix.programIdIndex);
    this.numbers(ix.accounts);
    this.nums.push(ix.data.length);
    this.chunks.push(ix.data);
    this.dataLength += ix.data.length;
    this.num(ix.stackHeight);
  }

  tokenBalances(list: TokenBalance[] | null): void {
    const nums = this.nums;
    if (list === null) {
      nums.push(NULL);
      return;
    }
    nums.push(list.length);
    for (const t of list) {
      nums.push(t.accountIndex);
      this.str(t.mint);
      this.str(t.owner);
      this.str(t.programId);
      this.big(t.amount);
      nums.push(t.decimals);
    }
  }

  tx(tx: NormalizedTx): void {
    const nums = this.nums;
    this.str(tx.signature);
    nums.push(tx.signatures.length);
    for (const s of tx.signatures) this.str(s);
    nums.push(tx.slot);
    this.num(tx.indexInBlock);
    this.num(tx.blockTime);
    nums.push(tx.version === 'legacy' ? NULL : tx.version);
    nums.push(tx.accountKeys.length);
    for (const k of tx.accountKeys) this.str(k);
    nums.push(tx.staticKeyCount);
    if (tx.header === null) nums.push(0);
    else {
      nums.push(1);
      nums.push(tx.header.numRequiredSignatures);
      nums.push(tx.header.numReadonlySignedAccounts);
      nums.push(tx.header.numReadonlyUnsignedAccounts);
    }
    this.str(tx.recentBlockhash);
    nums.push(tx.addressTableLookups.length);
    for (const l of tx.addressTableLookups) {
      this.str(l.accountKey);
      this.numbers(l.writableIndexes);
      this.numbers(l.readonlyIndexes);
    }
    nums.push(tx.instructions.length);
    for (const ix of tx.instructions) this.instruction(ix);
    nums.push(tx.innerInstructions.length);
    for (const inner of tx.innerInstructions) {
      nums.push(inner.index);
      nums.push(inner.instructions.length);
      for (const ix of inner.instructions) this.instruction(ix);
    }
    nums.push(tx.isVote ? 1 : 0);
    this.logs.push(tx.logMessages);
    const meta = tx.meta;
    if (meta === null) {
      nums.push(0);
      return;
    }
    nums.push(1);
    if (meta.err === null) nums.push(0);
    else {
      nums.push(1);
      this.errs.push(meta.err);
    }
    this.big(meta.fee);
    nums.push(meta.preBalances.length);
    for (const b of meta.preBalances) this.big(b);
    nums.push(meta.postBalances.length);
    for (const b of meta.postBalances) this.big(b);
    this.tokenBalances(meta.preTokenBalances);
    this.tokenBalances(meta.postTokenBalances);
    if (meta.computeUnitsConsumed === null) nums.push(0);
    else {
      nums.push(1);
      this.big(meta.computeUnitsConsumed);
    }
  }

  /** The one buffer of every instruction's data. */
  data(): Uint8Array {
    const data = new Uint8Array(this.dataLength);
    let at = 0;
    for (const c of this.chunks) {
      data.set(c, at);
      at += c.length;
    }
    return data;
  }
}

/** `block` packed, or null when one of its values does not fit the packing (send the block itself then). */
export function packBlock(block: Block): PackedBlock | null {
  const p = new Packer();
  try {
    for (const tx of block.transactions) p.tx(tx);
  } catch (e) {
    if (e instanceof Unpackable) return null;
    throw e;
  }
  const { transactions, ...fields } = block;
  return { ...fields, txCount: transactions.length, strings: p.strings, nums: p.nums.done(), bigs: p.bigs.done(), data: p.data(), logs: p.logs, errs: p.errs };
}

/** The buffers of `p`, to hand over (transfer) instead of copying when posting it to another thread. */
export function packedBuffers(p: PackedBlock): ArrayBuffer[] {
  return [p.nums.buffer, p.bigs.buffer, p.data.buffer] as ArrayBuffer[];
}

/** The reading state of one packed block (methods, not closures per block: see `Packer`). */
class Unpacker {
  n = 0;
  b = 0;
  d = 0;
  e = 0;
  constructor(
    readonly strings: string[],
    readonly nums: Float64Array,
    readonly bigs: BigUint64Array,
    readonly bytes: Uint8Array,
    readonly logs: (string[] | null)[],
    readonly errs: unknown[],
  ) {}

  str(): string {
    return this.strings[this.nums[this.n++]];
  }

  strOrNull(): string | null {
    const id = this.nums[this.n++];
    return id === NULL ? null : this.strings[id];
  }

  num(): number | null {
    const v = this.nums[this.n++];
    return Number.isNaN(v) ? null : v;
  }

  int(): number {
    return this.nums[this.n++];
  }

  numbers(): number[] {
    const len = this.nums[this.n++];
    const out = new Array<number>(len);
    for (let i = 0; i < len; i++) out[i] = this.nums[this.n++];
    return out;
  }

  instruction(): CompiledInstruction {
    const programIdIndex = this.nums[this.n++];
    const accounts = this.numbers();
    const len = this.nums[this.n++];
    const bytes = this.bytes.subarray(this.d, this.d + len);
    this.d += len;
    return { programIdIndex, accounts, data: bytes, stackHeight: this.num() };
  }

  big(): bigint {
    return this.bigs[this.b++];
  }

  bigList(): bigint[] {
    const len = this.nums[this.n++];
    const out = new Array<bigint>(len);
    for (let i = 0; i < len; i++) out[i] = this.bigs[this.b++];
    return out;
  }

  tokenBalances(): TokenBalance[] | null {
    const len = this.nums[this.n++];
    if (len === NULL) return null;
    const out = new Array<TokenBalance>(len);
    for (let i = 0; i < len; i++) {
      const accountIndex = this.nums[this.n++];
      const mint = this.str();
      const owner = this.strOrNull();
      const programId = this.strOrNull();
      out[i] = { accountIndex, mint, owner, programId, amount: this.bigs[this.b++], decimals: this.nums[this.n++] };
    }
    return out;
  }

  tx(t: number): NormalizedTx {
    const signature = this.str();
    const sigCount = this.int();
    const signatures = new Array<string>(sigCount);
    for (let i = 0; i < sigCount; i++) signatures[i] = this.str();
    const slot = this.int();
    const indexInBlock = this.num();
    const blockTime = this.num();
    const version = this.int() === NULL ? ('legacy' as const) : (0 as const);
    const keyCount = this.int();
    const accountKeys = new Array<string>(keyCount);
    for (let i = 0; i < keyCount; i++) accountKeys[i] = this.str();
    const staticKeyCount = this.int();
    const header =
      this.int() === 0
        ? null
        : { numRequiredSignatures: this.int(), numReadonlySignedAccounts: this.int(), numReadonlyUnsignedAccounts: this.int() };
    const recentBlockhash = this.strOrNull();
    const lookupCount = this.int();
    const addressTableLookups = new Array<NormalizedTx['addressTableLookups'][number]>(lookupCount);
    for (let i = 0; i < lookupCount; i++) {
      const accountKey = this.str();
      const writableIndexes = this.numbers();
      addressTableLookups[i] = { accountKey, writableIndexes, readonlyIndexes: this.numbers() };
    }
    const ixCount = this.int();
    const instructions = new Array<CompiledInstruction>(ixCount);
    for (let i = 0; i < ixCount; i++) instructions[i] = this.instruction();
    const innerCount = this.int();
    const innerInstructions = new Array<InnerInstructions>(innerCount);
    for (let i = 0; i < innerCount; i++) {
      const index = this.int();
      const count = this.int();
      const list = new Array<CompiledInstruction>(count);
      for (let j = 0; j < count; j++) list[j] = this.instruction();
      innerInstructions[i] = { index, instructions: list };
    }
    const isVote = this.int() === 1;
    let meta: NormalizedTx['meta'] = null;
    if (this.int() === 1) {
      const err = this.int() === 1 ? this.errs[this.e++] : null;
      const fee = this.big();
      const preBalances = this.bigList();
      const postBalances = this.bigList();
      const preTokenBalances = this.tokenBalances();
      const postTokenBalances = this.tokenBalances();
      const computeUnitsConsumed = this.int() === 1 ? this.big() : null;
      meta = { err, fee, preBalances, postBalances, preTokenBalances, postTokenBalances, computeUnitsConsumed };
    }
    return {
      signature, signatures, slot, indexInBlock, blockTime, version, accountKeys, staticKeyCount, header, recentBlockhash,
      addressTableLookups, instructions, innerInstructions, logMessages: this.logs[t], meta, isVote,
    };
  }
}

/** The block {@link packBlock} packed. */
export function unpackBlock(p: PackedBlock): Block {
  const { txCount, strings, nums, bigs, data, logs, errs, ...fields } = p;
  const u = new Unpacker(strings, nums, bigs, data, logs, errs);
  const transactions = new Array<NormalizedTx>(txCount);
  for (let t = 0; t < txCount; t++) transactions[t] = u.tx(t);
  if (u.n !== nums.length || u.b !== bigs.length || u.d !== data.length || u.e !== errs.length) {
    throw new Error(`packed block ${p.slot}: ${nums.length - u.n} numbers, ${bigs.length - u.b} amounts, ${data.length - u.d} data bytes left over`);
  }
  return { ...fields, transactions };
}
