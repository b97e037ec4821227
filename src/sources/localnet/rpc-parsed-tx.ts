/**
 * The `jsonParsed` transaction encoding (agave's `UiTransactionEncoding::JsonParsed`, what web3.js
 * `getParsedTransaction` asks for): account keys as `{pubkey, signer, source, writable}`, and each instruction, top
 * level and inner, parsed as `{program, programId, parsed, stackHeight}` when the localnet knows its program, else
 * partially decoded as `{programId, accounts, data, stackHeight}` (keys by name, data base58).
 *
 * Parsed here, with agave's `parse_instruction` names (transaction-status's parse_system.rs and the memo parser):
 * the System program's `createAccount`, `assign`, `transfer` and `allocate`, and SPL Memo (v1 and v2, `parsed` the
 * memo text). Everything else, the other System instructions and the token, associated-token and lookup-table
 * programs that agave also parses included, comes partially decoded.
 */
import { bytesToBase58 } from '../../core/encoding.js';
import { MEMO_PROGRAM, SYSTEM_PROGRAM } from '../../core/programs.js';
import { allKeys } from './block-store.js';
import { isWritable } from './executor.js';
import type { LocalInstruction, LocalTx } from './types.js';

const MEMO_V1_PROGRAM = 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo';

/** `{type, info}` of a System instruction this module parses, else null. */
function parseSystem(data: Uint8Array, keys: string[]): { type: string; info: Record<string, unknown> } | null {
  if (data.length < 4) return null;
  const v = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const tag = v.getUint32(0, true);
  const u64 = (o: number) => (data.length >= o + 8 ? v.getBigUint64(o, true) : null);
  const key = (o: number) => (data.length >= o + 32 ? bytesToBase58(data.subarray(o, o + 32)) : null);
  switch (tag) {
    case 0: {
      const [lamports, space, owner] = [u64(4), u64(12), key(20)];
      if (lamports === null || space === null || owner === null || keys.length < 2) return null;
      return { type: 'createAccount', info: { source: keys[0], newAccount: keys[1], lamports, space, owner } };
    }
    case 1: {
      const owner = key(4);
      if (owner === null || keys.length < 1) return null;
      return { type: 'assign', info: { account: keys[0], owner } };
    }
    case 2: {
      const lamports = u64(4);
      if (lamports === null || keys.length < 2) return null;
      return { type: 'transfer', info: { source: keys[0], destination: keys[1], lamports } };
    }
    case 8: {
      const space = u64(4);
      if (space === null || keys.length < 1) return null;
      return { type: 'allocate', info: { account: keys[0], space } };
    }
    default:
      return null;
  }
}

/** One instruction under `jsonParsed`; `keys` are the transaction's account keys (static, then loaded). */
export function parsedInstructionJson(ix: LocalInstruction, keys: string[]): Record<string, unknown> {
  const programId = keys[ix.programIdIndex];
  const accounts = ix.accounts.map((i) => keys[i]);
  if (programId === SYSTEM_PROGRAM) {
    const parsed = parseSystem(ix.data, accounts);
    if (parsed) return { parsed, program: 'system', programId, stackHeight: ix.stackHeight };
  } else if (programId === MEMO_PROGRAM || programId === MEMO_V1_PROGRAM) {
    const text = memoText(ix.data);
    if (text !== null) return { parsed: text, program: 'spl-memo', programId, stackHeight: ix.stackHeight };
  }
  return { accounts, data: bytesToBase58(ix.data), programId, stackHeight: ix.stackHeight };
}

function memoText(data: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return null;
  }
}

/** The `transaction` object under `jsonParsed`. */
export function parsedTransactionJson(tx: LocalTx): Record<string, unknown> {
  const h = tx.header;
  const keys = allKeys(tx);
  const n = tx.staticKeys.length;
  const accountKeys = keys.map((pubkey, i) => ({
    pubkey,
    signer: i < h.numRequiredSignatures,
    source: i < n ? 'transaction' : 'lookupTable',
    writable: isWritable(tx, i),
  }));
  const message: Record<string, unknown> = {
    accountKeys,
    instructions: tx.instructions.map((ix) => parsedInstructionJson(ix, keys)),
    recentBlockhash: tx.recentBlockhash,
  };
  if (tx.version === 0) message.addressTableLookups = tx.addressTableLookups;
  return { message, signatures: tx.signatures };
}

/** `meta.innerInstructions` under `jsonParsed`. */
export function parsedInnerJson(tx: LocalTx) {
  const keys = allKeys(tx);
  return tx.meta.innerInstructions.map((g) => ({ index: g.index, instructions: g.instructions.map((ix) => parsedInstructionJson(ix, keys)) }));
}
