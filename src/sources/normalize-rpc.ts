/**
 * Pure converters from the JSON shapes Solana data arrives in (JSON-RPC `getTransaction`/`getBlock` results in
 * base64, base58 or json encoding; Geyser-style recorded transactions; account snapshots) to the normalised
 * model of `core/model.ts`. Everything downstream (parsers, store) only ever sees `NormalizedTx`/`Block`/
 * `AccountUpdate`, so every wire quirk is handled here, once.
 *
 * Malformed input throws a {@link FieldError} whose message names the offending field; nothing here crashes on
 * an undefined access.
 */
import { base58ToBytes, bytesToBase58, isSignature } from '../core/encoding.js';
import { onlyInvokes, parseWireTransaction } from '../core/wire-transaction.js';
import type {
  AccountUpdate,
  AddressTableLookup,
  Block,
  CompiledInstruction,
  MessageHeader,
  NormalizedTx,
} from '../core/model.js';
import { VOTE_PROGRAM } from '../core/programs.js';
import {
  FieldError,
  address,
  arr,
  base58Bytes,
  base64Bytes,
  bool,
  encodedData,
  indexArray,
  isObject,
  obj,
  optArr,
  optInt,
  optStr,
  optU64,
  optUint,
  show,
  str,
  u64,
  uint,
  type JsonObject,
} from './fields.js';
import {
  checkIndexes,
  compiledInstruction,
  labelled,
  normalizeInner,
  normalizeMeta,
  strings,
} from './normalize-parts.js';

/** Context a transaction does not carry itself (a `getBlock` entry has no slot; a recorded file no position). */
export interface TxContext {
  slot?: number;
  indexInBlock?: number | null;
  blockTime?: number | null;
  /** Drop vote transactions before decoding them further (wire encodings only). */
  skipVotes?: boolean;
}

export interface BlockOptions {
  /**
   * Leave out pure vote transactions (every instruction invokes the Vote program): about 70% of a mainnet
   * block, of no interest to any index here. The others keep their true `indexInBlock`.
   */
  skipVotes?: boolean;
}

const VOTE_PROGRAM_BYTES = base58ToBytes(VOTE_PROGRAM);
/** Base58 of 64 zero bytes: an unsigned slot of a partially signed transaction. */
const ZERO_SIGNATURE = '1'.repeat(64);

/** The message part shared by all encodings, before meta is applied. */
interface DecodedMessage {
  signatures: string[];
  /** Version the message itself declares (the wire format knows; json encoding only hints). */
  version: 'legacy' | 0 | null;
  staticKeys: string[];
  header: MessageHeader;
  recentBlockhash: string;
  instructions: CompiledInstruction[];
  addressTableLookups: AddressTableLookup[];
}

/**
 * Normalises a JSON-RPC `getTransaction` result (encoding `base64`, `base58` or `json`; not `jsonParsed`).
 * `slot`/`blockTime` default to the result's own fields; `indexInBlock` to null (a single transaction does not
 * know its position). Account keys are the static keys followed by `meta.loadedAddresses` writable then
 * readonly, which is how address-lookup-table keys are resolved.
 */
export function normalizeRpcTransaction(result: unknown, opts: Omit<TxContext, 'skipVotes'> = {}): NormalizedTx {
  return labelled('getTransaction result', () => normalizeTxEntry(result, '', opts)!);
}

/**
 * Normalises a JSON-RPC `getBlock` result requested with `transactionDetails: 'full'` in any non-parsed
 * encoding. `slot` comes from the caller because the result does not contain it (recorded block files carry
 * it only in their file name). Transactions get `indexInBlock` = array position and the block's `blockTime`.
 */
export function normalizeRpcBlock(result: unknown, slot: number, opts: BlockOptions = {}): Block {
  return labelled(`getBlock result (slot ${slot})`, () => {
    const b = obj(result, 'block');
    const blockTime = optInt(b.blockTime, 'blockTime');
    if (!Array.isArray(b.transactions)) {
      throw new FieldError('transactions', "must be an array (request the block with transactionDetails: 'full')");
    }
    return {
      slot,
      parentSlot: optUint(b.parentSlot, 'parentSlot'),
      blockhash: optStr(b.blockhash, 'blockhash'),
      previousBlockhash: optStr(b.previousBlockhash, 'previousBlockhash'),
      blockTime,
      blockHeight: optUint(b.blockHeight, 'blockHeight'),
      transactions: b.transactions.flatMap((t, i) => {
        const tx = normalizeTxEntry(t, `transactions[${i}].`, { slot, indexInBlock: i, blockTime, skipVotes: opts.skipVotes });
        return tx ? [tx] : [];
      }),
    };
  });
}

/** `{transaction, meta, version, slot?, blockTime?}`: a getTransaction result or one entry of a getBlock. */
function normalizeTxEntry(entry: unknown, p: string, ctx: TxContext): NormalizedTx | null {
  const r = obj(entry, p ? p.slice(0, -1) : 'result');
  const slot = ctx.slot ?? uint(r.slot, `${p}slot`);
  const blockTime = ctx.blockTime !== undefined ? ctx.blockTime : optInt(r.blockTime, `${p}blockTime`);
  const declared = r.version;
  if (declared !== undefined && declared !== null && declared !== 'legacy' && declared !== 0) {
    throw new FieldError(`${p}version`, `must be "legacy" or 0, got ${JSON.stringify(declared)}`);
  }
  const msg = decodeTransactionField(r.transaction, `${p}transaction`, ctx.skipVotes ?? false);
  if (!msg) return null;
  // The wire format is authoritative; json encoding only has `version` and the presence of lookups to go by.
  const version: 'legacy' | 0 = msg.version ?? (declared === 0 ? 0 : 'legacy');
  const meta = r.meta === null || r.meta === undefined ? null : obj(r.meta, `${p}meta`);
  const accountKeys = [...msg.staticKeys];
  if (meta && meta.loadedAddresses !== undefined && meta.loadedAddresses !== null) {
    const la = obj(meta.loadedAddresses, `${p}meta.loadedAddresses`);
    const writable = arr(la.writable ?? [], `${p}meta.loadedAddresses.writable`);
    const readonly = arr(la.readonly ?? [], `${p}meta.loadedAddresses.readonly`);
    const want = countLookups(msg.addressTableLookups);
    if (writable.length !== want.writable || readonly.length !== want.readonly) {
      throw new FieldError(
        `${p}meta.loadedAddresses`,
        `has ${writable.length} writable/${readonly.length} readonly keys ` +
          `but the lookups select ${want.writable}/${want.readonly}`,
      );
    }
    writable.forEach((k, i) => accountKeys.push(address(k, `${p}meta.loadedAddresses.writable[${i}]`)));
    readonly.forEach((k, i) => accountKeys.push(address(k, `${p}meta.loadedAddresses.readonly[${i}]`)));
  } else if (msg.addressTableLookups.length > 0) {
    throw new FieldError(`${p}meta.loadedAddresses`, 'is required to resolve the address table lookups');
  }
  const innerInstructions = meta ? normalizeInner(meta.innerInstructions, `${p}meta.innerInstructions`) : [];
  const tx: NormalizedTx = {
    signature: msg.signatures[0],
    signatures: msg.signatures,
    slot,
    indexInBlock: ctx.indexInBlock ?? null,
    blockTime,
    version,
    accountKeys,
    staticKeyCount: msg.staticKeys.length,
    header: msg.header,
    recentBlockhash: msg.recentBlockhash,
    addressTableLookups: msg.addressTableLookups,
    instructions: msg.instructions,
    innerInstructions,
    logMessages: meta ? strings(meta.logMessages, `${p}meta.logMessages`) : null,
    meta: meta ? normalizeMeta(meta, `${p}meta.`, accountKeys.length) : null,
    isVote: false,
  };
  checkIndexes(tx, p);
  tx.isVote = tx.instructions.length > 0 && tx.instructions.every((ix) => tx.accountKeys[ix.programIdIndex] === VOTE_PROGRAM);
  return tx;
}

function countLookups(lookups: AddressTableLookup[]): { writable: number; readonly: number } {
  let writable = 0;
  let readonly = 0;
  for (const l of lookups) {
    writable += l.writableIndexes.length;
    readonly += l.readonlyIndexes.length;
  }
  return { writable, readonly };
}

/** The `transaction` field: `[data, "base64"|"base58"]` (wire bytes) or the json-encoding object. */
function decodeTransactionField(v: unknown, p: string, skipVotes = false): DecodedMessage | null {
  if (Array.isArray(v)) {
    const enc = str(v[1], `${p}[1]`);
    if (enc === 'base64') return decodeWire(base64Bytes(v[0], `${p}[0]`), `${p}[0]`, skipVotes);
    if (enc === 'base58') return decodeWire(base58Bytes(v[0], `${p}[0]`), `${p}[0]`, skipVotes);
    throw new FieldError(`${p}[1]`, `must be "base64" or "base58", got ${JSON.stringify(enc)}`);
  }
  if (typeof v === 'string') return decodeWire(base58Bytes(v, p), p); // legacy `encoding: 'binary'`
  return decodeJsonTransaction(obj(v, p), p);
}

/** Decodes wire-format transaction bytes (null for a vote when `skipVotes`). */
function decodeWire(bytes: Uint8Array, p: string, skipVotes = false): DecodedMessage | null {
  let w: ReturnType<typeof parseWireTransaction>;
  try {
    w = parseWireTransaction(bytes);
  } catch (e) {
    throw new FieldError(p, `is not a valid wire transaction (${(e as Error).message})`);
  }
  if (skipVotes && onlyInvokes(w, VOTE_PROGRAM_BYTES)) return null;
  if (w.signatures.length === 0) throw new FieldError(p, 'has no signatures');
  const signatures = w.signatures.map((s) => (s.every((x) => x === 0) ? ZERO_SIGNATURE : bytesToBase58(s)));
  return {
    signatures,
    version: w.version,
    staticKeys: w.staticKeys.map(bytesToBase58),
    header: w.header,
    recentBlockhash: bytesToBase58(w.recentBlockhash),
    instructions: w.instructions.map((ix) => ({
      programIdIndex: ix.programIdIndex,
      accounts: ix.accounts,
      data: Uint8Array.from(ix.data),
      stackHeight: 1,
    })),
    addressTableLookups: w.addressTableLookups.map((l) => ({
      accountKey: bytesToBase58(l.accountKey),
      writableIndexes: l.writableIndexes,
      readonlyIndexes: l.readonlyIndexes,
    })),
  };
}

/** The `json` encoding: `{signatures, message: {accountKeys, header, recentBlockhash, instructions, ...}}`. */
function decodeJsonTransaction(t: JsonObject, p: string): DecodedMessage {
  const signatures = arr(t.signatures, `${p}.signatures`).map((s, i) => {
    if (!isSignature(s)) throw new FieldError(`${p}.signatures[${i}]`, `must be a base58 signature, got ${show(s)}`);
    return s;
  });
  if (signatures.length === 0) throw new FieldError(`${p}.signatures`, 'must not be empty');
  const m = obj(t.message, `${p}.message`);
  const mp = `${p}.message`;
  const staticKeys = arr(m.accountKeys, `${mp}.accountKeys`).map((k, i) =>
    // jsonParsed-style `{pubkey, signer, writable}` entries are accepted for the keys.
    isObject(k) ? address(k.pubkey, `${mp}.accountKeys[${i}].pubkey`) : address(k, `${mp}.accountKeys[${i}]`),
  );
  const h = obj(m.header, `${mp}.header`);
  const lookups = optArr(m.addressTableLookups, `${mp}.addressTableLookups`);
  return {
    signatures,
    version: lookups ? 0 : null,
    staticKeys,
    header: {
      numRequiredSignatures: uint(h.numRequiredSignatures, `${mp}.header.numRequiredSignatures`),
      numReadonlySignedAccounts: uint(h.numReadonlySignedAccounts, `${mp}.header.numReadonlySignedAccounts`),
      numReadonlyUnsignedAccounts: uint(h.numReadonlyUnsignedAccounts, `${mp}.header.numReadonlyUnsignedAccounts`),
    },
    recentBlockhash: address(m.recentBlockhash, `${mp}.recentBlockhash`),
    instructions: arr(m.instructions, `${mp}.instructions`).map((ix, i) =>
      compiledInstruction(ix, `${mp}.instructions[${i}]`, 1),
    ),
    addressTableLookups: (lookups ?? []).map((l, i) => {
      const lp = `${mp}.addressTableLookups[${i}]`;
      const o = obj(l, lp);
      return {
        accountKey: address(o.accountKey, `${lp}.accountKey`),
        writableIndexes: indexArray(o.writableIndexes, `${lp}.writableIndexes`),
        readonlyIndexes: indexArray(o.readonlyIndexes, `${lp}.readonlyIndexes`),
      };
    }),
  };
}


/**
 * Normalises a Geyser-style recorded transaction (`{signature, slot, isVote, version, accountKeys,
 * outerInstructions, innerInstructions, logMessages}`, as in the DAS fixtures). Such records carry no meta and
 * no header, and their `accountKeys` already include lookup-table-loaded keys, so `staticKeyCount` is the full
 * length (the split is unknown). `version` is `"legacy"` or a number: 0 means v0 in the recorded files (legacy
 * ones say `"legacy"`); 1 is also read as v0 for recorders that number versions from 0 = legacy.
 */
export function normalizeGeyserTransaction(record: unknown): NormalizedTx {
  return labelled('Geyser transaction record', () => {
    const r = obj(record, 'record');
    const signature = str(r.signature, 'signature');
    if (!isSignature(signature)) throw new FieldError('signature', `must be a base58 signature, got ${show(signature)}`);
    const v = r.version;
    let version: 'legacy' | 0;
    if (v === 'legacy' || v === undefined || v === null) version = 'legacy';
    else if (v === 0 || v === 1 || v === '0' || v === 'v0') version = 0;
    else throw new FieldError('version', `must be "legacy", 0 or 1, got ${JSON.stringify(v)}`);
    const accountKeys = arr(r.accountKeys, 'accountKeys').map((k, i) => address(k, `accountKeys[${i}]`));
    const instructions = arr(r.outerInstructions, 'outerInstructions').map((ix, i) =>
      compiledInstruction(ix, `outerInstructions[${i}]`, 1),
    );
    const tx: NormalizedTx = {
      signature,
      signatures: [signature],
      slot: uint(r.slot, 'slot'),
      indexInBlock: optUint(r.slotIndex ?? r.indexInBlock, 'slotIndex'),
      blockTime: optInt(r.blockTime, 'blockTime'),
      version,
      accountKeys,
      staticKeyCount: accountKeys.length,
      header: null,
      recentBlockhash: null,
      addressTableLookups: [],
      instructions,
      innerInstructions: normalizeInner(r.innerInstructions, 'innerInstructions'),
      logMessages: strings(r.logMessages, 'logMessages'),
      meta: null,
      isVote: false,
    };
    checkIndexes(tx, '');
    const computed = instructions.some((ix) => accountKeys[ix.programIdIndex] === VOTE_PROGRAM);
    tx.isVote = r.isVote === undefined || r.isVote === null ? computed : bool(r.isVote, 'isVote') || computed;
    return tx;
  });
}

/**
 * Normalises an account snapshot `{pubkey, lamports, owner, data: [b64, "base64"], slot, executable?,
 * writeVersion?}` (also the DAS recorded account files, whose extra fields are ignored).
 */
export function normalizeAccountSnapshot(record: unknown): AccountUpdate {
  return labelled('account snapshot', () => {
    const r = obj(record, 'record');
    return {
      pubkey: address(r.pubkey, 'pubkey'),
      owner: address(r.owner, 'owner'),
      lamports: u64(r.lamports, 'lamports'),
      data: encodedData(r.data, 'data'),
      executable: r.executable === undefined || r.executable === null ? false : bool(r.executable, 'executable'),
      slot: uint(r.slot, 'slot'),
      writeVersion: optU64(r.writeVersion, 'writeVersion') ?? 0n,
    };
  });
}
