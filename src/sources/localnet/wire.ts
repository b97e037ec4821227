/**
 * Wire-format helpers: decoding a serialized transaction into its message parts (with @solana/kit's real
 * codecs), resolving address-lookup-table keys the way the runtime does, patching the recent blockhash for
 * `replaceRecentBlockhash`, and extracting memos.
 */
import { getCompiledTransactionMessageDecoder, getTransactionDecoder, type Transaction } from '@solana/kit';
import { bytesToBase58 } from '../../core/encoding.js';
import { MEMO_PROGRAM } from '../../core/programs.js';
import type { DecodedTx, LocalAccount, RpcTransactionError } from './types.js';

export const ADDRESS_LOOKUP_TABLE_PROGRAM = 'AddressLookupTab1e1111111111111111111111111';
/** The legacy memo program (v1); memos of both programs show up in `getSignaturesForAddress`. */
export const MEMO_V1_PROGRAM = 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo';
/** Size of the lookup-table header that precedes the packed 32-byte addresses. */
export const LOOKUP_TABLE_META_SIZE = 56;

const txDecoder = getTransactionDecoder();
const messageDecoder = getCompiledTransactionMessageDecoder();
const ZERO_SIGNATURE = bytesToBase58(new Uint8Array(64));

/**
 * Decodes wire bytes. Throws (with a readable message) on malformed input; the caller maps that to -32602.
 * Returns the kit `Transaction` too, which is what LiteSVM's `sendTransaction` takes.
 */
export function decodeWireTransaction(wire: Uint8Array): { decoded: DecodedTx; kitTx: Transaction } {
  const kitTx = txDecoder.decode(wire) as Transaction;
  const msg = messageDecoder.decode(kitTx.messageBytes);
  if (msg.version !== 'legacy' && msg.version !== 0) throw new Error(`unsupported transaction version ${String(msg.version)}`);
  const signatures = Object.values(kitTx.signatures).map((s) => (s ? bytesToBase58(s as Uint8Array) : ZERO_SIGNATURE));
  if (signatures.length === 0) throw new Error('transaction has no signatures');
  const lookups = msg.version === 0 ? (msg.addressTableLookups ?? []) : [];
  const decoded: DecodedTx = {
    wire,
    messageBytes: new Uint8Array(kitTx.messageBytes),
    signatures,
    version: msg.version,
    header: {
      numRequiredSignatures: msg.header.numSignerAccounts,
      numReadonlySignedAccounts: msg.header.numReadonlySignerAccounts,
      numReadonlyUnsignedAccounts: msg.header.numReadonlyNonSignerAccounts,
    },
    staticKeys: [...msg.staticAccounts],
    recentBlockhash: msg.lifetimeToken,
    instructions: msg.instructions.map((ix) => ({
      programIdIndex: ix.programAddressIndex,
      accounts: [...(ix.accountIndices ?? [])],
      data: new Uint8Array(ix.data ?? new Uint8Array(0)),
      stackHeight: null,
    })),
    addressTableLookups: lookups.map((l) => ({
      accountKey: l.lookupTableAddress,
      writableIndexes: [...l.writableIndexes],
      readonlyIndexes: [...l.readonlyIndexes],
    })),
  };
  return { decoded, kitTx };
}

/**
 * Resolves the keys a v0 message loads from lookup tables: all writable ones (in lookup order), then all
 * readonly ones — the runtime's account order. Returns the RPC error the runtime would raise when a table is
 * missing or malformed (such a transaction is never committed).
 */
export function resolveLoadedAddresses(
  tx: DecodedTx,
  readAccount: (address: string) => LocalAccount | null,
): { writable: string[]; readonly: string[] } | { err: RpcTransactionError } {
  const writable: string[] = [];
  const readonly: string[] = [];
  for (const l of tx.addressTableLookups) {
    const table = readAccount(l.accountKey);
    if (!table) return { err: 'AddressLookupTableNotFound' };
    if (table.owner !== ADDRESS_LOOKUP_TABLE_PROGRAM) return { err: 'InvalidAddressLookupTableOwner' };
    const body = table.data.length - LOOKUP_TABLE_META_SIZE;
    if (body < 0 || body % 32 !== 0) return { err: 'InvalidAddressLookupTableData' };
    const count = body / 32;
    const at = (i: number) =>
      bytesToBase58(table.data.subarray(LOOKUP_TABLE_META_SIZE + 32 * i, LOOKUP_TABLE_META_SIZE + 32 * (i + 1)));
    for (const i of l.writableIndexes) {
      if (i >= count) return { err: 'InvalidAddressLookupTableIndex' };
      writable.push(at(i));
    }
    for (const i of l.readonlyIndexes) {
      if (i >= count) return { err: 'InvalidAddressLookupTableIndex' };
      readonly.push(at(i));
    }
  }
  return { writable, readonly };
}

/** Byte length of a compact-u16 ("shortvec") encoding of `n`. */
function shortVecLength(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : 3;
}

/**
 * Returns wire bytes whose message uses `blockhash` instead of its own (signatures untouched, so only valid
 * for simulations with `sigVerify: false`). The blockhash sits right after the static account keys.
 */
export function replaceBlockhash(tx: DecodedTx, blockhashBytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(tx.wire);
  const sigSection = shortVecLength(tx.signatures.length) + 64 * tx.signatures.length;
  const offset =
    sigSection + (tx.version === 0 ? 1 : 0) + 3 + shortVecLength(tx.staticKeys.length) + 32 * tx.staticKeys.length;
  out.set(blockhashBytes, offset);
  return out;
}

/**
 * The `memo` of `getSignaturesForAddress`: agave formats each memo instruction's UTF-8 data as
 * `"[<byte length>] <text>"` and joins several with `"; "`.
 */
export function extractMemo(tx: DecodedTx, accountKeys: string[]): string | null {
  const memos: string[] = [];
  for (const ix of tx.instructions) {
    const program = accountKeys[ix.programIdIndex];
    if (program !== MEMO_PROGRAM && program !== MEMO_V1_PROGRAM) continue;
    memos.push(`[${ix.data.length}] ${new TextDecoder().decode(ix.data)}`);
  }
  return memos.length ? memos.join('; ') : null;
}
