/**
 * Pure decoding of SPL Token and Token-2022 accounts (mints and token accounts, with Token-2022 extensions)
 * using the generated @solana-program/token-2022 codecs, whose base layouts are the SPL Token ones.
 * Layout: https://github.com/solana-program/token-2022/blob/main/interface/src/extension/mod.rs
 */
import { getMintDecoder, getTokenDecoder } from '../../vendor/solana-program-token-2022.js';
import { isSome, type Option } from '../../vendor/solana-kit.js';
import type { AccountUpdate } from '../../core/model.js';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../../core/programs.js';

const MINT_SIZE = 82;
const ACCOUNT_SIZE = 165;
const MULTISIG_SIZE = 355;

export interface DecodedMint {
  kind: 'mint';
  address: string;
  program: string;
  decimals: number;
  supply: bigint;
  mintAuthority: string | null;
  freezeAuthority: string | null;
  isInitialized: boolean;
  /** Token-2022 extensions by name (JSON-safe: bigints as strings). */
  extensions: Record<string, Record<string, unknown>>;
}

export interface DecodedTokenAccount {
  kind: 'account';
  address: string;
  program: string;
  mint: string;
  owner: string;
  amount: bigint;
  delegate: string | null;
  delegatedAmount: bigint;
  state: 'uninitialized' | 'initialized' | 'frozen';
  isNative: bigint | null;
  closeAuthority: string | null;
  extensions: Record<string, Record<string, unknown>>;
}

const optAddr = (o: Option<string>): string | null => (isSome(o) ? o.value : null);

/** Makes a decoded extension JSON-safe (bigints → strings, Options → value|null, bytes → base64-less arrays). */
export function jsonSafe(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (Array.isArray(v)) return v.map(jsonSafe);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (o.__option === 'Some') return jsonSafe(o.value);
    if (o.__option === 'None') return null;
    if (v instanceof Map) return Object.fromEntries([...v.entries()].map(([k, x]) => [String(k), jsonSafe(x)]));
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, jsonSafe(x)]));
  }
  return v;
}

function extensionsOf(ext: Option<Array<{ __kind: string } & Record<string, unknown>>>): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  if (!isSome(ext)) return out;
  for (const e of ext.value) {
    const { __kind, ...rest } = e;
    const name = __kind.charAt(0).toLowerCase() + __kind.slice(1);
    out[name] = jsonSafe(rest) as Record<string, unknown>;
  }
  return out;
}

/**
 * Decodes an account owned by a token program, or returns null (other owners, multisigs, uninitialised or
 * undecodable data — never throws).
 */
export function decodeTokenProgramAccount(u: AccountUpdate): DecodedMint | DecodedTokenAccount | null {
  if (u.owner !== TOKEN_PROGRAM && u.owner !== TOKEN_2022_PROGRAM) return null;
  const len = u.data.length;
  let kind: 'mint' | 'account' | null = null;
  if (len === MINT_SIZE) kind = 'mint';
  else if (len === ACCOUNT_SIZE) kind = 'account';
  else if (u.owner === TOKEN_2022_PROGRAM && len > ACCOUNT_SIZE && len !== MULTISIG_SIZE) {
    // Extended Token-2022 accounts carry their type in the byte after the base account size.
    const t = u.data[ACCOUNT_SIZE];
    kind = t === 1 ? 'mint' : t === 2 ? 'account' : null;
  }
  if (!kind) return null;
  try {
    if (kind === 'mint') {
      const m = getMintDecoder().decode(u.data);
      if (!m.isInitialized) return null;
      return {
        kind,
        address: u.pubkey,
        program: u.owner,
        decimals: m.decimals,
        supply: m.supply,
        mintAuthority: optAddr(m.mintAuthority),
        freezeAuthority: optAddr(m.freezeAuthority),
        isInitialized: m.isInitialized,
        extensions: extensionsOf(m.extensions as never),
      };
    }
    const a = getTokenDecoder().decode(u.data);
    const state = (['uninitialized', 'initialized', 'frozen'] as const)[a.state as number] ?? 'uninitialized';
    if (state === 'uninitialized') return null;
    return {
      kind,
      address: u.pubkey,
      program: u.owner,
      mint: a.mint,
      owner: a.owner,
      amount: a.amount,
      delegate: optAddr(a.delegate),
      delegatedAmount: a.delegatedAmount,
      state,
      isNative: isSome(a.isNative) ? a.isNative.value : null,
      closeAuthority: optAddr(a.closeAuthority),
      extensions: extensionsOf(a.extensions as never),
    };
  } catch {
    return null;
  }
}
