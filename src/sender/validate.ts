/**
 * Sender admission checks (compat-facts §4), pure: a `sendTransaction` request is forwarded only when
 *  - the transaction decodes (base64 or base58 as `encoding` says; legacy or v0 message; at most 1,232 bytes);
 *  - it carries every required signature and each verifies (ed25519 over the message) against its signer;
 *  - `skipPreflight` is `true`;
 *  - a ComputeBudget `SetComputeUnitPrice` instruction is present (the priority fee);
 *  - System transfers to the configured tip accounts add up to at least the minimum tip of the route (dual or
 *    `swqos_only`). Tip accounts must be static keys of the message (lookup-table entries are not resolved here).
 * Each failure is a `SenderRejection` with its own reason and message. The wire format (legacy / v0) is read in
 * place by `parseWire` (no codec objects, no base58 of keys that are only compared); signatures are verified by
 * libsodium where it loads (src/core/ed25519.ts).
 */
import { getBase58Encoder } from '../vendor/solana-kit.js';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS } from '../vendor/solana-program-compute-budget.js';
import { SYSTEM_PROGRAM_ADDRESS } from '../vendor/solana-program-system.js';
import { base58ToBytes, bytesToBase58 } from '../core/encoding.js';
import { verifyEd25519 } from '../core/ed25519.js';

/** Largest serialized transaction a validator accepts (PACKET_DATA_SIZE). */
export const MAX_TRANSACTION_BYTES = 1232;

/** Mainnet tip accounts (compat-facts §4). */
export const DEFAULT_TIP_ACCOUNTS: readonly string[] = [
  '4ACfpUFoaSD9bfPdeu6DBt89gB6ENTeHBXCAi87NhDEE', 'D2L6yPZ2FmmmTKPgzaMKdhu6EWZcTpLy1Vhx8uvZe7NZ',
  '9bnz4RShgq1hAnLnZbP8kbgBg1kEmcJBYQq3gQbmnSta', '5VY91ws6B2hMmBFRsXkoAAdsPHBJwRfBht4DXox3xkwn',
  '2nyhqdwKcJZR2vcqCyrYsaPVdAnFoJjiksCXJ7hfEYgD', '2q5pghRs6arqVjRvT5gfgWfWcHWmw1ZuCzphgd5KfWGJ',
  'wyvPkWjVZz1M8fHQnMMCDTQDbkManefNNhweYk5WkcF', '3KCKozbAaF75qEU33jtzozcJ29yJuaLJTy2jFdzUY8bT',
  '4vieeGHPYPG2MmyPRcYjdiDmmhN3ww7hsFNap8pVN3Ey', '4TQLFNWK8AovT1gFvda5jfw2oJeRMKEmw7aH6MGBJ3or',
];

export interface TipPolicy {
  tipAccounts: readonly string[];
  /** Minimum tip (lamports) when routed to validators and the block builder. */
  minTipLamports: bigint;
  /** Minimum tip (lamports) with `swqos_only=true`. */
  minTipSwqosLamports: bigint;
}

export type RejectionReason =
  | 'bad_request' | 'bad_encoding' | 'too_large' | 'undecodable' | 'unsupported_version' | 'missing_signature'
  | 'bad_signature' | 'preflight' | 'no_priority_fee' | 'no_tip' | 'wrong_tip_account' | 'tip_too_small';

export class SenderRejection extends Error {
  constructor(readonly reason: RejectionReason, message: string) {
    super(message);
  }
}

export interface AdmittedTransaction {
  /** The first signature (the transaction id), base58. */
  signature: string;
  /** The wire bytes, base64 (what upstreams receive). */
  base64: string;
  recentBlockhash: string;
  computeUnitPriceMicroLamports: bigint;
  tipLamports: bigint;
}

/** What admission needs of a legacy / v0 transaction, read in place from its wire bytes. */
interface WireTransaction {
  /** One 64-byte signature per required signer, in order. */
  signatures: Uint8Array[];
  /** The signed message bytes. */
  message: Uint8Array;
  numSigners: number;
  /** Static account keys (32 bytes each). */
  keys: Uint8Array[];
  recentBlockhash: Uint8Array;
  instructions: { program: number; accounts: Uint8Array; data: Uint8Array }[];
}

class WireError extends Error {}

/** Reads a transaction's wire format (compact-u16 lengths; legacy or v0 message). Throws WireError or SenderRejection (version). */
function parseWire(b: Uint8Array): WireTransaction {
  let at = 0;
  const need = (n: number) => {
    if (at + n > b.length) throw new WireError(`truncated at byte ${at} (${n} more wanted, ${b.length} in all)`);
  };
  const shortU16 = (): number => {
    let v = 0;
    for (let i = 0; i < 3; i++) {
      need(1);
      const x = b[at++];
      v |= (x & 0x7f) << (7 * i);
      if (!(x & 0x80)) return v;
    }
    throw new WireError('malformed compact-u16 length');
  };
  const take = (n: number): Uint8Array => {
    need(n);
    const out = b.subarray(at, at + n);
    at += n;
    return out;
  };
  const sigCount = shortU16();
  const signatures: Uint8Array[] = [];
  for (let i = 0; i < sigCount; i++) signatures.push(take(64));
  const messageStart = at;
  need(1);
  let version: 'legacy' | number = 'legacy';
  if (b[at] & 0x80) {
    version = b[at] & 0x7f;
    at++;
    if (version !== 0) throw new SenderRejection('unsupported_version', `unsupported message version ${version}`);
  }
  const [numSigners] = take(3);
  const keys: Uint8Array[] = [];
  for (let i = 0, n = shortU16(); i < n; i++) keys.push(take(32));
  const recentBlockhash = take(32);
  const instructions: WireTransaction['instructions'] = [];
  for (let i = 0, n = shortU16(); i < n; i++) {
    const program = take(1)[0];
    const accounts = take(shortU16());
    const data = take(shortU16());
    instructions.push({ program, accounts, data });
  }
  if (version === 0)
    for (let i = 0, n = shortU16(); i < n; i++) {
      take(32);
      take(shortU16());
      take(shortU16());
    }
  if (at !== b.length) throw new WireError(`${b.length - at} bytes after the message`);
  if (sigCount !== numSigners) throw new WireError(`${sigCount} signatures for ${numSigners} required signers`);
  if (numSigners > keys.length) throw new WireError(`${numSigners} signers but ${keys.length} account keys`);
  for (const ix of instructions) if (ix.program >= keys.length) throw new WireError(`program index ${ix.program} out of range`);
  return { signatures, message: b.subarray(messageStart), numSigners, keys, recentBlockhash, instructions };
}

const latin1 = (k: Uint8Array) => Buffer.from(k.buffer, k.byteOffset, k.byteLength).toString('latin1');
const COMPUTE_BUDGET_KEY = latin1(base58ToBytes(COMPUTE_BUDGET_PROGRAM_ADDRESS));
const SYSTEM_KEY = latin1(base58ToBytes(SYSTEM_PROGRAM_ADDRESS));
/** A policy's tip accounts as latin1 strings of their bytes (compared without encoding the message's keys). */
const tipKeys = new WeakMap<readonly string[], Set<string>>();
function tipKeySet(accounts: readonly string[]): Set<string> {
  let set = tipKeys.get(accounts);
  if (!set) {
    set = new Set(accounts.map((a) => latin1(base58ToBytes(a))));
    tipKeys.set(accounts, set);
  }
  return set;
}

function decodeWire(tx: string, encoding: string): Uint8Array {
  // Size check before decoding: base64 of 1,232 bytes is 1,644 characters, base58 at most ≈1,685.
  if (tx.length > 2048) throw new SenderRejection('too_large', `transaction too large: ${tx.length} characters encoded (max ${MAX_TRANSACTION_BYTES} bytes)`);
  let bytes: Uint8Array;
  if (encoding === 'base64') {
    // Buffer skips characters outside the alphabet: the round trip below refuses them.
    const buf = Buffer.from(tx, 'base64');
    if (buf.toString('base64').replace(/=+$/, '') !== tx.replace(/=+$/, '')) throw new SenderRejection('bad_encoding', 'transaction is not valid base64');
    bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  } else {
    try {
      bytes = new Uint8Array(getBase58Encoder().encode(tx));
    } catch {
      throw new SenderRejection('bad_encoding', `transaction is not valid ${encoding}`);
    }
  }
  if (bytes.length > MAX_TRANSACTION_BYTES) throw new SenderRejection('too_large', `transaction too large: ${bytes.length} bytes (max ${MAX_TRANSACTION_BYTES})`);
  return bytes;
}

const lamportsSol = (l: bigint) => `${Number(l) / 1e9} SOL`;

/**
 * Checks a `sendTransaction` request's params (`[tx, {encoding, skipPreflight, maxRetries}]`) for the route
 * (`swqosOnly`). Throws SenderRejection; returns what routing needs.
 */
export function admitTransaction(params: unknown, policy: TipPolicy, swqosOnly: boolean): AdmittedTransaction {
  if (!Array.isArray(params) || params.length < 1 || params.length > 2)
    throw new SenderRejection('bad_request', 'params must be [transaction, {encoding, skipPreflight, maxRetries}]');
  const [tx, opts] = params as [unknown, unknown];
  if (typeof tx !== 'string' || tx.length === 0) throw new SenderRejection('bad_request', 'params[0] must be the signed transaction as a base64 or base58 string');
  if (opts !== undefined && (opts === null || typeof opts !== 'object' || Array.isArray(opts)))
    throw new SenderRejection('bad_request', 'params[1] must be an object {encoding, skipPreflight, maxRetries}');
  const o = (opts ?? {}) as { encoding?: unknown; skipPreflight?: unknown; maxRetries?: unknown };
  const encoding = o.encoding ?? 'base58';
  if (encoding !== 'base64' && encoding !== 'base58') throw new SenderRejection('bad_request', `unsupported encoding ${typeof encoding === 'string' ? JSON.stringify(encoding.slice(0, 40)) : `of type ${Array.isArray(encoding) ? 'array' : encoding === null ? 'null' : typeof encoding}`}: use base64 or base58`);
  if (o.maxRetries !== undefined && (typeof o.maxRetries !== 'number' || !Number.isInteger(o.maxRetries) || o.maxRetries < 0))
    throw new SenderRejection('bad_request', 'maxRetries must be a non-negative integer');

  const bytes = decodeWire(tx, encoding);
  let msg: WireTransaction;
  try {
    msg = parseWire(bytes);
  } catch (e) {
    if (e instanceof SenderRejection) throw e;
    throw new SenderRejection('undecodable', `transaction could not be decoded: ${(e as Error).message}`);
  }

  // Signatures: one per required signer, in order, each valid for the message.
  for (let i = 0; i < msg.numSigners; i++) {
    const s = msg.signatures[i];
    if (s.every((b) => b === 0)) throw new SenderRejection('missing_signature', `transaction is not signed by ${bytesToBase58(msg.keys[i])}`);
    if (!verifyEd25519(msg.keys[i], msg.message, s)) throw new SenderRejection('bad_signature', `signature of ${bytesToBase58(msg.keys[i])} does not verify`);
  }
  if (o.skipPreflight !== true) throw new SenderRejection('preflight', 'skipPreflight must be true: Sender forwards without simulation');

  // Priority fee and tip, from the top-level instructions.
  let price: bigint | null = null;
  let tip = 0n;
  let tipAccount: Uint8Array | null = null;
  let otherTransfers = 0;
  const tipSet = tipKeySet(policy.tipAccounts);
  for (const ix of msg.instructions) {
    const program = latin1(msg.keys[ix.program]);
    const data = ix.data;
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    if (program === COMPUTE_BUDGET_KEY) {
      // SetComputeUnitPrice: discriminator 3, u64 micro-lamports.
      if (data.length >= 9 && data[0] === 3) price = view.getBigUint64(1, true);
    } else if (program === SYSTEM_KEY) {
      // Transfer: u32 discriminator 2, u64 lamports; accounts [source, destination].
      if (data.length !== 12 || view.getUint32(0, true) !== 2) continue;
      const destIndex = ix.accounts[1];
      const dest = destIndex === undefined ? undefined : msg.keys[destIndex];
      const amount = view.getBigUint64(4, true);
      if (dest !== undefined && tipSet.has(latin1(dest))) {
        tip += amount;
        tipAccount = dest;
      } else otherTransfers++;
    }
  }
  if (price === null) throw new SenderRejection('no_priority_fee', 'no priority fee: add a ComputeBudget SetComputeUnitPrice instruction');
  const min = swqosOnly ? policy.minTipSwqosLamports : policy.minTipLamports;
  if (tip === 0n) {
    if (otherTransfers > 0)
      throw new SenderRejection('wrong_tip_account', `no transfer to a tip account: tips must go to one of ${policy.tipAccounts.join(', ')} (as static keys)`);
    throw new SenderRejection('no_tip', `no tip: transfer at least ${min} lamports (${lamportsSol(min)}) to one of the tip accounts ${policy.tipAccounts.join(', ')}`);
  }
  if (tip < min)
    throw new SenderRejection('tip_too_small', `tip too small: ${tip} lamports to ${tipAccount ? bytesToBase58(tipAccount) : '?'}; the minimum ${swqosOnly ? 'with swqos_only=true' : 'for dual routing'} is ${min} lamports (${lamportsSol(min)})`);

  return {
    signature: bytesToBase58(msg.signatures[0]),
    // As received when it is already canonical (padded) base64: no re-encoding.
    base64: encoding === 'base64' && tx.length % 4 === 0 ? tx : Buffer.from(bytes).toString('base64'),
    recentBlockhash: bytesToBase58(msg.recentBlockhash),
    computeUnitPriceMicroLamports: price,
    tipLamports: tip,
  };
}
