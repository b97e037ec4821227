/**
 * The `jsonParsed` form of SPL Token and Token-2022 accounts as agave's account decoder produces it
 * (`parse_token.rs`, `parse_token_extension.rs`): `{program: "spl-token" | "spl-token-2022", parsed: {type, info},
 * space}` for token accounts, mints and multisigs, Token-2022 extensions included, plus the unpack rules the RPC's
 * token methods apply (`StateWithExtensions::<Account|Mint>::unpack`, the `tokenAccountState` filter).
 *
 * Not reproduced: the interest-bearing and scaled-UI-amount adjustments of `uiAmount`/`uiAmountString` (amounts are
 * always rendered with the mint's decimals only).
 */
import { bytesToBase58, bytesToBase64 } from '../../core/encoding.js';
import { NATIVE_DECIMALS, NATIVE_MINT } from '../../core/programs.js';
import type { LocalAccount } from './types.js';

export const TOKEN_ACCOUNT_LEN = 165;
export const MINT_LEN = 82;
const MULTISIG_LEN = 355;
const ACCOUNT_TYPE_MINT = 1;
const ACCOUNT_TYPE_ACCOUNT = 2;

const view = (d: Uint8Array) => new DataView(d.buffer, d.byteOffset, d.byteLength);
const u64 = (d: Uint8Array, o: number) => view(d).getBigUint64(o, true);
const key = (d: Uint8Array, o: number) => bytesToBase58(d.subarray(o, o + 32));

/** `COption<T>` tag: 0 = None, 1 = Some, anything else makes the state unpackable. */
function coption(d: Uint8Array, o: number): boolean | null {
  const tag = view(d).getUint32(o, true);
  return tag === 0 ? false : tag === 1 ? true : null;
}

/** An `OptionalNonZeroPubkey`: all zeros is None. */
function optKey(d: Uint8Array, o: number): string | null {
  for (let i = o; i < o + 32; i++) if (d[i] !== 0) return key(d, o);
  return null;
}

/** `Account::valid_account_data` of spl-token-2022 (the `tokenAccountState` filter, both token programs). */
export function isTokenAccountData(d: Uint8Array): boolean {
  if (d.length < TOKEN_ACCOUNT_LEN || d[108] === 0) return false;
  return d.length === TOKEN_ACCOUNT_LEN || (d.length !== MULTISIG_LEN && d[TOKEN_ACCOUNT_LEN] === ACCOUNT_TYPE_ACCOUNT);
}

/**
 * `StateWithExtensions::<S>::unpack` length/padding/type rules; returns the TLV region, or null when unpackable.
 * The base state's own checks are the caller's.
 */
function tlvRegion(d: Uint8Array, baseLen: number, accountType: number): Uint8Array | null {
  if (d.length < baseLen || d.length === MULTISIG_LEN) return null;
  if (d.length === baseLen) return d.subarray(d.length);
  for (let i = baseLen; i < TOKEN_ACCOUNT_LEN; i++) if (d[i] !== 0) return null;
  if (d.length < TOKEN_ACCOUNT_LEN + 1 || d[TOKEN_ACCOUNT_LEN] !== accountType) return null;
  return d.subarray(TOKEN_ACCOUNT_LEN + 1);
}

interface TokenAccountState {
  mint: string;
  owner: string;
  amount: bigint;
  delegate: string | null;
  state: 'initialized' | 'frozen';
  isNative: bigint | null;
  delegatedAmount: bigint;
  closeAuthority: string | null;
  tlv: Uint8Array;
}

/** `StateWithExtensions::<Account>::unpack` (an initialized token account), else null. */
export function unpackTokenAccount(d: Uint8Array): TokenAccountState | null {
  const tlv = tlvRegion(d, TOKEN_ACCOUNT_LEN, ACCOUNT_TYPE_ACCOUNT);
  if (!tlv) return null;
  const delegate = coption(d, 72);
  const native = coption(d, 109);
  const close = coption(d, 129);
  const state = d[108];
  if (delegate === null || native === null || close === null || state === 0 || state > 2) return null;
  return {
    mint: key(d, 0), owner: key(d, 32), amount: u64(d, 64), delegate: delegate ? key(d, 76) : null,
    state: state === 1 ? 'initialized' : 'frozen', isNative: native ? u64(d, 113) : null, delegatedAmount: u64(d, 121),
    closeAuthority: close ? key(d, 133) : null, tlv,
  };
}

interface MintState {
  mintAuthority: string | null;
  supply: bigint;
  decimals: number;
  freezeAuthority: string | null;
  tlv: Uint8Array;
}

/** `StateWithExtensions::<Mint>::unpack` (an initialized mint), else null. */
export function unpackMint(d: Uint8Array): MintState | null {
  const tlv = tlvRegion(d, MINT_LEN, ACCOUNT_TYPE_MINT);
  if (!tlv) return null;
  const auth = coption(d, 0);
  const freeze = coption(d, 46);
  if (auth === null || freeze === null || d[45] !== 1) return null;
  return { mintAuthority: auth ? key(d, 4) : null, supply: u64(d, 36), decimals: d[44], freezeAuthority: freeze ? key(d, 50) : null, tlv };
}

/** The mint's decimals as the RPC resolves them (the native mint needs no account), or null when not a mint. */
export function mintDecimalsOf(mint: string, read: (address: string) => LocalAccount | null): number | null {
  if (mint === NATIVE_MINT) return NATIVE_DECIMALS;
  const acc = read(mint);
  return acc ? (unpackMint(acc.data)?.decimals ?? null) : null;
}

const POW10 = Array.from({ length: 20 }, (_, i) => Number(10n ** BigInt(i)));

/** `token_amount_to_ui_amount_v3` without interest/scaling: `uiAmount` = amount as f64 / 10^decimals (0, not null). */
export function uiAmount(amount: bigint, decimals: number) {
  const s = amount.toString().padStart(decimals + 1, '0');
  const whole = decimals ? s.slice(0, -decimals) : s;
  const frac = decimals ? s.slice(-decimals).replace(/0+$/, '') : '';
  return {
    amount: amount.toString(),
    decimals,
    uiAmount: decimals < POW10.length ? Number(amount) / POW10[decimals] : null,
    uiAmountString: frac ? `${whole}.${frac}` : whole,
  };
}

/** Rust's `f64::to_string` (never exponent notation). */
function rustF64(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'NaN' : x > 0 ? 'inf' : '-inf';
  const s = String(x);
  if (!/e/.test(s)) return s;
  const [m, e] = s.split('e');
  const exp = Number(e);
  const neg = m.startsWith('-');
  const digits = m.replace(/[-.]/g, '');
  const point = (m.replace('-', '').indexOf('.') + 1 || m.replace('-', '').length + 1) - 1 + exp;
  const out = point <= 0 ? `0.${'0'.repeat(-point)}${digits}` : point >= digits.length ? digits + '0'.repeat(point - digits.length) : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return (neg ? '-' : '') + out;
}

const STATES = ['uninitialized', 'initialized', 'frozen'] as const;

type Ext = { extension: string; state?: Record<string, unknown> };

/** One extension's value (`UiExtension`), from its TLV bytes; null when the bytes do not fit its layout. */
function extension(type: number, v: Uint8Array): Ext | null {
  const dv = view(v);
  const b64 = (o: number, n: number) => bytesToBase64(v.subarray(o, o + n));
  const optB64 = (o: number) => (v.subarray(o, o + 32).some((x) => x !== 0) ? b64(o, 32) : null);
  const fee = (o: number) => ({ epoch: dv.getBigUint64(o, true), maximumFee: dv.getBigUint64(o + 8, true), transferFeeBasisPoints: dv.getUint16(o + 16, true) });
  // `get_extension` reads a fixed-size value only from bytes of exactly its size.
  const fixed = (len: number, name: string, state: () => Record<string, unknown>): Ext | null =>
    v.length !== len ? null : { extension: name, state: state() };
  switch (type) {
    case 0: return { extension: 'uninitialized' };
    case 1: return fixed(108, 'transferFeeConfig', () => ({
      transferFeeConfigAuthority: optKey(v, 0), withdrawWithheldAuthority: optKey(v, 32), withheldAmount: dv.getBigUint64(64, true),
      olderTransferFee: fee(72), newerTransferFee: fee(90),
    }));
    case 2: return fixed(8, 'transferFeeAmount', () => ({ withheldAmount: dv.getBigUint64(0, true) }));
    case 3: return fixed(32, 'mintCloseAuthority', () => ({ closeAuthority: optKey(v, 0) }));
    case 4: return fixed(65, 'confidentialTransferMint', () => ({ authority: optKey(v, 0), autoApproveNewAccounts: v[32] !== 0, auditorElgamalPubkey: optB64(33) }));
    case 5: return fixed(295, 'confidentialTransferAccount', () => ({
      approved: v[0] !== 0, elgamalPubkey: b64(1, 32), pendingBalanceLo: b64(33, 64), pendingBalanceHi: b64(97, 64), availableBalance: b64(161, 64),
      decryptableAvailableBalance: b64(225, 36), allowConfidentialCredits: v[261] !== 0, allowNonConfidentialCredits: v[262] !== 0,
      pendingBalanceCreditCounter: dv.getBigUint64(263, true), maximumPendingBalanceCreditCounter: dv.getBigUint64(271, true),
      expectedPendingBalanceCreditCounter: dv.getBigUint64(279, true), actualPendingBalanceCreditCounter: dv.getBigUint64(287, true),
    }));
    case 6: return fixed(1, 'defaultAccountState', () => ({ accountState: STATES[v[0]] ?? 'uninitialized' }));
    case 7: return { extension: 'immutableOwner' };
    case 8: return fixed(1, 'memoTransfer', () => ({ requireIncomingTransferMemos: v[0] !== 0 }));
    case 9: return { extension: 'nonTransferable' };
    case 10: return fixed(52, 'interestBearingConfig', () => ({
      rateAuthority: optKey(v, 0), initializationTimestamp: dv.getBigInt64(32, true), preUpdateAverageRate: dv.getInt16(40, true),
      lastUpdateTimestamp: dv.getBigInt64(42, true), currentRate: dv.getInt16(50, true),
    }));
    case 11: return fixed(1, 'cpiGuard', () => ({ lockCpi: v[0] !== 0 }));
    case 12: return fixed(32, 'permanentDelegate', () => ({ delegate: optKey(v, 0) }));
    case 13: return { extension: 'nonTransferableAccount' };
    case 14: return fixed(64, 'transferHook', () => ({ authority: optKey(v, 0), programId: optKey(v, 32) }));
    case 15: return fixed(1, 'transferHookAccount', () => ({ transferring: v[0] !== 0 }));
    case 16: return fixed(129, 'confidentialTransferFeeConfig', () => ({
      authority: optKey(v, 0), withdrawWithheldAuthorityElgamalPubkey: optB64(32), harvestToMintEnabled: v[64] !== 0, withheldAmount: b64(65, 64),
    }));
    case 17: return fixed(64, 'confidentialTransferFeeAmount', () => ({ withheldAmount: b64(0, 64) }));
    case 18: return fixed(64, 'metadataPointer', () => ({ authority: optKey(v, 0), metadataAddress: optKey(v, 32) }));
    case 19: return tokenMetadata(v);
    case 20: return fixed(64, 'groupPointer', () => ({ authority: optKey(v, 0), groupAddress: optKey(v, 32) }));
    case 21: return fixed(80, 'tokenGroup', () => ({ updateAuthority: optKey(v, 0), mint: key(v, 32), size: dv.getBigUint64(64, true), maxSize: dv.getBigUint64(72, true) }));
    case 22: return fixed(64, 'groupMemberPointer', () => ({ authority: optKey(v, 0), memberAddress: optKey(v, 32) }));
    case 23: return fixed(72, 'tokenGroupMember', () => ({ mint: key(v, 0), group: key(v, 32), memberNumber: dv.getBigUint64(64, true) }));
    case 24: return fixed(196, 'confidentialMintBurn', () => ({
      confidentialSupply: b64(0, 64), decryptableSupply: b64(64, 36), supplyElgamalPubkey: b64(100, 32), pendingBurn: b64(132, 64),
    }));
    case 25: return fixed(56, 'scaledUiAmountConfig', () => ({
      authority: optKey(v, 0), multiplier: rustF64(dv.getFloat64(32, true)), newMultiplierEffectiveTimestamp: dv.getBigInt64(40, true),
      newMultiplier: rustF64(dv.getFloat64(48, true)),
    }));
    case 26: return fixed(33, 'pausableConfig', () => ({ authority: optKey(v, 0), paused: v[32] !== 0 }));
    case 27: return { extension: 'pausableAccount' };
    default: return null;
  }
}

/** The variable-length token-metadata extension (borsh: authority, mint, name, symbol, uri, additional pairs). */
function tokenMetadata(v: Uint8Array): Ext | null {
  const dv = view(v);
  let o = 64;
  const str = (): string => {
    const n = dv.getUint32(o, true);
    if (o + 4 + n > v.length) throw new RangeError('short');
    const s = new TextDecoder('utf-8', { fatal: true }).decode(v.subarray(o + 4, o + 4 + n));
    o += 4 + n;
    return s;
  };
  try {
    if (v.length < 64) return null;
    const name = str();
    const symbol = str();
    const uri = str();
    const count = dv.getUint32(o, true);
    o += 4;
    const additionalMetadata: [string, string][] = [];
    for (let i = 0; i < count; i++) additionalMetadata.push([str(), str()]);
    return { extension: 'tokenMetadata', state: { updateAuthority: optKey(v, 0), mint: key(v, 32), name, symbol, uri, additionalMetadata } };
  } catch {
    return null;
  }
}

/** `get_extension_types()` + `parse_extension` over a TLV region; a malformed region or unknown type gives []. */
function extensionsOf(tlv: Uint8Array): Ext[] {
  const out: Ext[] = [];
  let o = 0;
  while (o < tlv.length) {
    if (tlv.length < o + 2) break; // a trailing byte: the end (`get_tlv_data_info`)
    const type = tlv[o] | (tlv[o + 1] << 8);
    if (type === 0) break;
    if (type > 27 || tlv.length < o + 4) return [];
    const len = tlv[o + 2] | (tlv[o + 3] << 8);
    if (o + 4 + len > tlv.length) return [];
    out.push(extension(type, tlv.subarray(o + 4, o + 4 + len)) ?? { extension: 'unparseableExtension' });
    o += 4 + len;
  }
  return out;
}

/**
 * `parsed` of a token-program account (`parse_token_v3`), or null when it does not parse — a token account whose
 * mint cannot be read (`decimals` null) included, as the RPC then has no additional data for it.
 */
export function parseTokenProgramAccount(d: Uint8Array, decimals: number | null): Record<string, unknown> | null {
  const acc = unpackTokenAccount(d);
  if (acc) {
    if (decimals === null) return null;
    const info: Record<string, unknown> = { isNative: acc.isNative !== null, mint: acc.mint, owner: acc.owner, state: acc.state, tokenAmount: uiAmount(acc.amount, decimals) };
    if (acc.closeAuthority) info.closeAuthority = acc.closeAuthority;
    if (acc.delegate) {
      info.delegate = acc.delegate;
      info.delegatedAmount = uiAmount(acc.delegatedAmount, decimals);
    }
    if (acc.isNative !== null) info.rentExemptReserve = uiAmount(acc.isNative, decimals);
    const extensions = extensionsOf(acc.tlv);
    if (extensions.length) info.extensions = extensions;
    return { type: 'account', info };
  }
  const mint = unpackMint(d);
  if (mint) {
    const info: Record<string, unknown> = {
      decimals: mint.decimals, freezeAuthority: mint.freezeAuthority, isInitialized: true, mintAuthority: mint.mintAuthority, supply: mint.supply.toString(),
    };
    const extensions = extensionsOf(mint.tlv);
    if (extensions.length) info.extensions = extensions;
    return { type: 'mint', info };
  }
  if (d.length === MULTISIG_LEN && d[2] === 1) {
    const signers: string[] = [];
    for (let i = 0; i < 11; i++) {
      const s = optKey(d, 3 + 32 * i);
      if (s) signers.push(s);
    }
    return { type: 'multisig', info: { isInitialized: true, numRequiredSigners: d[0], numValidSigners: d[1], signers } };
  }
  return null;
}
