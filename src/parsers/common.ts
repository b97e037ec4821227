/**
 * Helpers shared by the program parsers: adapting a `TracedInstruction` to the `@solana/kit` instruction shape the
 * Codama-generated `parse*Instruction` functions expect, turning decoded values into JSON-safe data, and building
 * `parse.failed` events.
 */
import { AccountRole, isSome, type Address as KitAddress, type Option } from '../vendor/solana-kit.js';
import { bytesToBase64 } from '../core/encoding.js';
import type { Address } from '../core/model.js';
import type { DomainEvent, ParseFailedEvent, TracedInstruction } from './events.js';

/** A `@solana/kit` instruction with accounts and data, as the generated `parse*Instruction` functions take it. */
export interface KitInstruction {
  programAddress: KitAddress;
  accounts: { address: KitAddress; role: AccountRole }[];
  data: Uint8Array;
}

/**
 * Adapts a traced instruction for the generated parsers. Account roles are not known from a compiled instruction
 * alone and no parser reads them, so every account is marked read-only.
 */
export function toKitInstruction(ix: TracedInstruction): KitInstruction {
  return {
    programAddress: ix.programId as KitAddress,
    accounts: ix.accounts.map((a) => ({ address: a as KitAddress, role: AccountRole.READONLY })),
    data: ix.data,
  };
}

/** The `parse.failed` event for `ix`. */
export function failed(ix: TracedInstruction, reason: string): ParseFailedEvent {
  return { kind: 'parse.failed', path: ix.path, program: ix.programId, reason };
}

/** A short reason string from anything thrown (SolanaError messages carry the error code and context). */
export function errorReason(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.length > 300 ? `${msg.slice(0, 297)}...` : msg;
}

/**
 * Runs `parse`, turning any exception into one `parse.failed` event, and an instruction the walker could not
 * resolve into `parse.failed` without calling `parse` at all. Parsers of known programs are wrapped in this so a
 * malformed instruction (truncated data, unknown discriminator, too few accounts) is recorded, never thrown.
 */
export function guarded(ix: TracedInstruction, parse: (ix: TracedInstruction) => DomainEvent[]): DomainEvent[] {
  if (ix.unresolved) return [failed(ix, ix.unresolved)];
  try {
    return parse(ix);
  } catch (e) {
    return [failed(ix, errorReason(e))];
  }
}

/** `Option<Address>` (or an address, or null) → address or null. */
export function optAddress(v: Option<KitAddress> | KitAddress | null | undefined): Address | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  return isSome(v) ? v.value : null;
}

/**
 * Converts decoded instruction data to JSON-safe values: bigint → decimal string, `Option` → value or null,
 * bytes → base64 string, numeric enums left as numbers; `discriminator`-like keys are dropped.
 */
export function jsonSafe(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (v === null || v === undefined) return null;
  if (v instanceof Uint8Array) return bytesToBase64(v);
  if (Array.isArray(v)) return v.map(jsonSafe);
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if ('__option' in o) return o.__option === 'Some' ? jsonSafe(o.value) : null;
    const out: Record<string, unknown> = {};
    for (const [k, val] of Object.entries(o)) {
      if (/discriminator$/i.test(k)) continue;
      out[k] = jsonSafe(val);
    }
    return out;
  }
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return v;
}

/** `jsonSafe` for a decoded data struct, typed as the `TokenExtensionEvent.data` record. */
export function jsonData(v: unknown): Record<string, unknown> {
  const r = jsonSafe(v);
  return r && typeof r === 'object' && !Array.isArray(r) ? (r as Record<string, unknown>) : { value: r };
}

/** `SomeName` → `someName` (enum member names → event strings). */
export function lowerFirst(s: string): string {
  return s.length ? s[0].toLowerCase() + s.slice(1) : s;
}

/** One entry of a token program `Batch` instruction's data (as both Codama clients decode it). */
export interface BatchEntry {
  numberOfAccounts: number;
  instructionData: Uint8Array | { readonly [i: number]: number; readonly length: number };
}

/**
 * Splits a token program `Batch` instruction (discriminator 255: repeated `[numAccounts u8, dataLen u8, data]`,
 * each inner instruction taking the next `numAccounts` accounts of the batch) into the instructions it executes,
 * all with the batch's path. Throws when the batch names more accounts than it carries.
 * Source: https://github.com/solana-program/token/blob/main/pinocchio/program/src/processor/batch.rs
 */
export function splitBatch(ix: TracedInstruction, entries: readonly BatchEntry[]): TracedInstruction[] {
  const out: TracedInstruction[] = [];
  let next = 0;
  for (const e of entries) {
    if (next + e.numberOfAccounts > ix.accounts.length) {
      throw new Error(`batch entry needs ${e.numberOfAccounts} accounts at ${next}, only ${ix.accounts.length} given`);
    }
    out.push({
      path: ix.path,
      programId: ix.programId,
      accounts: ix.accounts.slice(next, next + e.numberOfAccounts),
      data: Uint8Array.from(e.instructionData as ArrayLike<number>),
    });
    next += e.numberOfAccounts;
  }
  return out;
}
