/**
 * Sender admission checks (compat-facts §4), pure: a `sendTransaction` request is forwarded only when
 *  - the transaction decodes (base64 or base58 as `encoding` says; legacy or v0 message; at most 1,232 bytes);
 *  - it carries every required signature and each verifies (ed25519 over the message) against its signer;
 *  - `skipPreflight` is `true`;
 *  - a ComputeBudget `SetComputeUnitPrice` instruction is present (the priority fee);
 *  - System transfers to the configured tip accounts add up to at least the minimum tip of the route (dual or
 *    `swqos_only`). Tip accounts must be static keys of the message (lookup-table entries are not resolved here).
 * Each failure is a `SenderRejection` with its own reason and message. Decoding uses @solana/kit's codecs and the
 * System / ComputeBudget program codecs.
 */
import { createPublicKey, verify } from 'node:crypto';
import {
  getBase58Encoder, getBase64Encoder, getCompiledTransactionMessageDecoder, getTransactionDecoder,
} from '@solana/kit';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS, ComputeBudgetInstruction, identifyComputeBudgetInstruction, getSetComputeUnitPriceInstructionDataDecoder } from '@solana-program/compute-budget';
import { SYSTEM_PROGRAM_ADDRESS, SystemInstruction, getTransferSolInstructionDataDecoder, identifySystemInstruction } from '@solana-program/system';
import { bytesToBase58 } from '../core/encoding.js';

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

/** The compiled legacy / v0 message as @solana/kit decodes it. */
interface LegacyOrV0Message {
  version: 'legacy' | 0;
  header: { numSignerAccounts: number; numReadonlySignerAccounts: number; numReadonlyNonSignerAccounts: number };
  staticAccounts: string[];
  lifetimeToken: string;
  instructions: { programAddressIndex: number; accountIndices?: number[]; data?: Uint8Array }[];
}

const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  const key = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, publicKey]), format: 'der', type: 'spki' });
  return verify(null, message, key, signature);
}

function decodeWire(tx: string, encoding: string): Uint8Array {
  // Size check before decoding: base64 of 1,232 bytes is 1,644 characters, base58 at most ≈1,685.
  if (tx.length > 2048) throw new SenderRejection('too_large', `transaction too large: ${tx.length} characters encoded (max ${MAX_TRANSACTION_BYTES} bytes)`);
  let bytes: Uint8Array;
  try {
    bytes = encoding === 'base64' ? new Uint8Array(getBase64Encoder().encode(tx)) : new Uint8Array(getBase58Encoder().encode(tx));
  } catch {
    throw new SenderRejection('bad_encoding', `transaction is not valid ${encoding}`);
  }
  if (encoding === 'base64' && Buffer.from(bytes).toString('base64').replace(/=+$/, '') !== tx.replace(/=+$/, ''))
    throw new SenderRejection('bad_encoding', 'transaction is not valid base64');
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
  let decoded: ReturnType<ReturnType<typeof getTransactionDecoder>['decode']>;
  let decodedMsg: { version: unknown };
  try {
    decoded = getTransactionDecoder().decode(bytes);
    decodedMsg = getCompiledTransactionMessageDecoder().decode(decoded.messageBytes);
  } catch (e) {
    throw new SenderRejection('undecodable', `transaction could not be decoded: ${(e as Error).message}`);
  }
  if (decodedMsg.version !== 'legacy' && decodedMsg.version !== 0) throw new SenderRejection('unsupported_version', `unsupported message version ${String(decodedMsg.version)}`);
  const msg = decodedMsg as LegacyOrV0Message;

  // Signatures: one per required signer, in order, each valid for the message.
  const signers = msg.staticAccounts.slice(0, msg.header.numSignerAccounts);
  const sigs = decoded.signatures as Record<string, Uint8Array | null>;
  const messageBytes = new Uint8Array(decoded.messageBytes);
  for (const signer of signers) {
    const s = sigs[signer];
    if (!s || s.every((b) => b === 0)) throw new SenderRejection('missing_signature', `transaction is not signed by ${signer}`);
    if (!verifyEd25519(new Uint8Array(getBase58Encoder().encode(signer)), messageBytes, s))
      throw new SenderRejection('bad_signature', `signature of ${signer} does not verify`);
  }
  if (o.skipPreflight !== true) throw new SenderRejection('preflight', 'skipPreflight must be true: Sender forwards without simulation');

  // Priority fee and tip, from the top-level instructions.
  let price: bigint | null = null;
  let tip = 0n;
  let tipAccount: string | null = null;
  let otherTransfers = 0;
  const tipSet = new Set(policy.tipAccounts);
  for (const ix of msg.instructions) {
    const program = msg.staticAccounts[ix.programAddressIndex];
    const data = new Uint8Array(ix.data ?? []);
    if (program === COMPUTE_BUDGET_PROGRAM_ADDRESS) {
      try {
        if (identifyComputeBudgetInstruction(data) === ComputeBudgetInstruction.SetComputeUnitPrice)
          price = getSetComputeUnitPriceInstructionDataDecoder().decode(data).microLamports;
      } catch {
        /* not a compute-budget instruction this codec knows */
      }
    } else if (program === SYSTEM_PROGRAM_ADDRESS) {
      let isTransfer = false;
      try {
        isTransfer = data.length === 12 && identifySystemInstruction(data) === SystemInstruction.TransferSol;
      } catch {
        isTransfer = false;
      }
      if (!isTransfer) continue;
      const dest = msg.staticAccounts[(ix.accountIndices ?? [])[1] ?? -1];
      const amount = getTransferSolInstructionDataDecoder().decode(data).amount;
      if (dest !== undefined && tipSet.has(dest)) {
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
    throw new SenderRejection('tip_too_small', `tip too small: ${tip} lamports to ${tipAccount}; the minimum ${swqosOnly ? 'with swqos_only=true' : 'for dual routing'} is ${min} lamports (${lamportsSol(min)})`);

  const first = sigs[signers[0]]!;
  return {
    signature: bytesToBase58(first),
    base64: Buffer.from(bytes).toString('base64'),
    recentBlockhash: msg.lifetimeToken,
    computeUnitPriceMicroLamports: price,
    tipLamports: tip,
  };
}
