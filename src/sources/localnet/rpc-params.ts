/**
 * Parameter validation for the localnet JSON-RPC methods. Failures throw `RpcError` with the codes and
 * messages agave uses (-32602 "Invalid params: …", "Invalid param: …").
 */
import { base58ToBytes, base64ToBytes, isAddress, isSignature } from '../../core/encoding.js';
import type { LocalChain } from './chain.js';
import { commitmentLevel, type Commitment } from './commitment.js';
import type { AccountEncoding, TxEncoding } from './rpc-encode.js';

/** Reported by `getVersion` and in `context.apiVersion`. */
export const SOLANA_CORE_VERSION = '2.3.13';

/** A JSON-RPC error with the Solana server code (e.g. -32004) and optional `data`. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

export const invalidParams = (detail: string) => new RpcError(-32602, `Invalid params: ${detail}`);
/** A -32602 error whose message is exactly `message` (agave's `Error::invalid_params(message)`). */
export const invalidParam = (message: string) => new RpcError(-32602, message);

/**
 * The response `context` (`{apiVersion, slot}`): the slot of the newest block at `level` (by default the config's
 * `commitment`, finalized when absent), after the `minContextSlot` check against it (-32016).
 */
export function context(chain: LocalChain, cfg: Record<string, unknown> = {}, level: Commitment = levelOpt(cfg)) {
  const slot = chain.slotAt(level);
  if (cfg.minContextSlot !== undefined && cfg.minContextSlot !== null && slotParam(cfg.minContextSlot, 'minContextSlot') > slot) {
    throw new RpcError(-32016, 'Minimum context slot has not been reached', { contextSlot: slot });
  }
  return { apiVersion: SOLANA_CORE_VERSION, slot };
}

/** `jsonrpc-derive`'s check of the required positional parameters. */
export function requireArgs(params: unknown[], n: number): void {
  if (params.length < n) throw invalidParam(`\`params\` should have at least ${n} argument(s)`);
}

const COMMITMENTS = ['processed', 'confirmed', 'finalized', 'recent', 'single', 'singleGossip', 'root', 'max'];

/** `commitment` (a level or one of agave's deprecated aliases); returns it or undefined. */
export function commitmentOpt(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || !COMMITMENTS.includes(v)) {
    throw invalidParams(`unknown variant \`${String(v)}\`, expected one of \`processed\`, \`confirmed\`, \`finalized\`.`);
  }
  return v;
}

/** The level `cfg.commitment` asks for (agave's default when absent: finalized). */
export function levelOpt(cfg: Record<string, unknown>): Commitment {
  return commitmentLevel(commitmentOpt(cfg.commitment));
}

/** The level of a method that serves only confirmed and finalized data (block and history methods). */
export function confirmedLevelOpt(cfg: Record<string, unknown>): 'confirmed' | 'finalized' {
  const level = levelOpt(cfg);
  if (level === 'processed') throw invalidParam('Method does not support commitment below `confirmed`');
  return level;
}

/** Positional params; named (object) params are not part of the Solana API. */
export function positional(params: unknown): unknown[] {
  if (params === undefined || params === null) return [];
  if (!Array.isArray(params)) throw new RpcError(-32602, 'Invalid params: expected an array');
  return params;
}

/** A non-negative integer (numbers, or digit strings produced by the lossless JSON parser for u64 values). */
export function u64(v: unknown, what: string): bigint {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v);
  if (typeof v === 'bigint' && v >= 0n) return v;
  throw invalidParams(`invalid type: expected u64 for ${what}, got ${JSON.stringify(v)}`);
}

export function slotParam(v: unknown, what = 'slot'): number {
  const n = u64(v, what);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw invalidParams(`${what} out of range`);
  return Number(n);
}

export function requireParam(params: unknown[], i: number, what: string): unknown {
  if (params[i] === undefined) throw invalidParams(`missing ${what}`);
  return params[i];
}

export function configParam(v: unknown): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw invalidParams('invalid type: expected a config object');
  return v as Record<string, unknown>;
}

/** A public key as agave's `verify_pubkey` parses it ("Invalid param: WrongSize" / "Invalid param: Invalid"). */
export function addressParam(v: unknown): string {
  if (isAddress(v)) return v;
  if (typeof v !== 'string') throw invalidParams(`invalid type: ${jsonType(v)}, expected a string.`);
  if (v.length > 44) throw invalidParam('Invalid param: WrongSize');
  let n: number;
  try {
    n = base58ToBytes(v).length;
  } catch {
    throw invalidParam('Invalid param: Invalid');
  }
  throw invalidParam(n > 32 ? 'Invalid param: Invalid' : 'Invalid param: WrongSize');
}

/** serde's name of a JSON value's type in "invalid type" errors. */
export function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'sequence';
  if (typeof v === 'string') return `string ${JSON.stringify(v)}`;
  if (typeof v === 'boolean') return `boolean \`${v}\``;
  if (typeof v === 'number' || typeof v === 'bigint') return Number.isInteger(Number(v)) ? `integer \`${v}\`` : `floating point \`${v}\``;
  return 'map';
}

export function signatureParam(v: unknown): string {
  if (!isSignature(v)) throw new RpcError(-32602, 'Invalid param: Invalid');
  return v;
}

export function boolOpt(v: unknown, dflt: boolean, what: string): boolean {
  if (v === undefined || v === null) return dflt;
  if (typeof v !== 'boolean') throw invalidParams(`invalid type: expected a boolean for ${what}`);
  return v;
}

export function txEncodingOpt(v: unknown, dflt: TxEncoding): TxEncoding {
  if (v === undefined || v === null) return dflt;
  if (v === 'json' || v === 'jsonParsed' || v === 'base64' || v === 'base58') return v;
  if (v === 'binary') return 'base58';
  throw invalidParams(`unknown variant \`${String(v)}\`, expected one of \`binary\`, \`base64\`, \`base58\`, \`json\`, \`jsonParsed\``);
}

/** An account `encoding` (`dflt` when absent: `binary` for most methods, `base64` for getMultipleAccounts). */
export function accountEncodingOpt(v: unknown, dflt: AccountEncoding = 'binary'): AccountEncoding {
  if (v === undefined || v === null) return dflt;
  if (v === 'binary' || v === 'base58' || v === 'base64' || v === 'jsonParsed' || v === 'base64+zstd') return v;
  throw invalidParams(`unknown variant \`${String(v)}\`, expected one of \`binary\`, \`base58\`, \`base64\`, \`jsonParsed\`, \`base64+zstd\`.`);
}

export interface DataSlice {
  offset: number;
  length: number;
}

/** `dataSlice: {offset, length}` (both required, as `UiDataSliceConfig`). */
export function dataSliceOpt(v: unknown): DataSlice | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw invalidParams(`invalid type: ${jsonType(v)}, expected struct UiDataSliceConfig.`);
  const o = v as { offset?: unknown; length?: unknown };
  if (o.offset === undefined) throw invalidParams('missing field `offset`.');
  if (o.length === undefined) throw invalidParams('missing field `length`.');
  return { offset: slotParam(o.offset, 'dataSlice.offset'), length: slotParam(o.length, 'dataSlice.length') };
}

/** `maxSupportedTransactionVersion`: absent (legacy only) or 0. */
export function maxVersionOpt(v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 255) throw invalidParams('invalid maxSupportedTransactionVersion');
  return v;
}

/** The -32015 error of a client that did not opt into v0 transactions. */
export function unsupportedVersionError(): RpcError {
  return new RpcError(
    -32015,
    'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
  );
}

/** Decodes a transaction string sent to `sendTransaction`/`simulateTransaction` (default encoding base58). */
export function wireParam(v: unknown, encoding: unknown): Uint8Array {
  if (typeof v !== 'string') throw invalidParams('invalid type: expected a transaction string');
  const enc = encoding ?? 'base58';
  try {
    if (enc === 'base64') return base64ToBytes(v);
    if (enc === 'base58') return base58ToBytes(v);
  } catch (e) {
    throw new RpcError(-32602, `invalid transaction: ${enc} decode failed: ${(e as Error).message}`);
  }
  throw new RpcError(-32602, `unsupported encoding: ${String(enc)}. Supported encodings: base58, base64`);
}
