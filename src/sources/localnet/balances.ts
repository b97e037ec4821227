/**
 * The parts of a transaction's status meta LiteSVM does not report, recomputed the way agave does:
 * token balances (from account reads before/after execution) and the fee (from the message).
 */
import { bytesToBase58 } from '../../core/encoding.js';
import { COMPUTE_BUDGET_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../../core/programs.js';
import type { DecodedTx, LocalAccount, LocalTokenBalance } from './types.js';

const TOKEN_ACCOUNT_LEN = 165;
const MINT_LEN = 82;
/** Token-2022 `AccountType` byte stored right after the 165-byte base when extensions are present. */
const ACCOUNT_TYPE_OFFSET = 165;
const ACCOUNT_TYPE_ACCOUNT = 2;

function readU64(data: Uint8Array, offset: number): bigint {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(offset, true);
}

/** Parses an initialized SPL Token / Token-2022 token account; `null` for anything else (mints, multisigs…). */
export function parseTokenAccount(acc: LocalAccount): { mint: string; owner: string; amount: bigint } | null {
  const d = acc.data;
  if (acc.owner === TOKEN_PROGRAM) {
    if (d.length !== TOKEN_ACCOUNT_LEN) return null;
  } else if (acc.owner === TOKEN_2022_PROGRAM) {
    if (d.length < TOKEN_ACCOUNT_LEN) return null;
    if (d.length > TOKEN_ACCOUNT_LEN && d[ACCOUNT_TYPE_OFFSET] !== ACCOUNT_TYPE_ACCOUNT) return null;
  } else {
    return null;
  }
  if (d[108] === 0) return null; // AccountState::Uninitialized
  return { mint: bytesToBase58(d.subarray(0, 32)), owner: bytesToBase58(d.subarray(32, 64)), amount: readU64(d, 64) };
}

/** Decimals of an initialized mint account, else `null`. */
export function mintDecimals(acc: LocalAccount | null): number | null {
  if (!acc || (acc.owner !== TOKEN_PROGRAM && acc.owner !== TOKEN_2022_PROGRAM)) return null;
  if (acc.data.length < MINT_LEN || acc.data[45] !== 1) return null;
  return acc.data[44];
}

/**
 * Token balances of every account key that is a token account, as agave's `collect_token_balances` does
 * (the token programs themselves are skipped; entries whose mint cannot be read are dropped).
 * `read` must see the state of the moment being described (before or after execution).
 */
export function collectTokenBalances(
  keys: string[],
  read: (address: string) => LocalAccount | null,
): LocalTokenBalance[] {
  const out: LocalTokenBalance[] = [];
  const decimalsCache = new Map<string, number | null>();
  keys.forEach((key, accountIndex) => {
    if (key === TOKEN_PROGRAM || key === TOKEN_2022_PROGRAM) return;
    const acc = read(key);
    if (!acc) return;
    const parsed = parseTokenAccount(acc);
    if (!parsed) return;
    let decimals = decimalsCache.get(parsed.mint);
    if (decimals === undefined) {
      decimals = mintDecimals(read(parsed.mint));
      decimalsCache.set(parsed.mint, decimals);
    }
    if (decimals === null) return;
    out.push({ accountIndex, mint: parsed.mint, owner: parsed.owner, programId: acc.owner, amount: parsed.amount, decimals });
  });
  return out;
}

export const LAMPORTS_PER_SIGNATURE = 5000n;
export const MAX_COMPUTE_UNIT_LIMIT = 1_400_000n;
/** Default compute-unit allocation of an instruction of a non-builtin (sBPF) program. */
export const DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT = 200_000n;
/** Default allocation of a builtin (native-loader) program instruction (agave, SIMD-0170). */
export const MAX_BUILTIN_ALLOCATION_COMPUTE_UNIT_LIMIT = 3_000n;
const NATIVE_LOADER = 'NativeLoader1111111111111111111111111111111';
/** Precompiles whose first data byte counts extra signatures that are charged like transaction signatures. */
const PRECOMPILES = new Set([
  'Ed25519SigVerify111111111111111111111111111',
  'KeccakSecp256k11111111111111111111111111111',
  'Secp256r1SigVerify1111111111111111111111111',
]);

/**
 * The fee LiteSVM charges (verified against balance deltas in the tests): 5000 lamports per signature
 * (transaction + precompile signatures) plus the priority fee `ceil(price_micro_lamports × cu_limit / 1e6)`.
 * The CU limit is the `SetComputeUnitLimit` value, else 200 000 per non-builtin instruction plus 3 000 per
 * builtin one (a program is builtin when owned by the native loader; programs migrated to sBPF such as the
 * address-lookup-table program count as non-builtin), capped at 1.4M in both cases.
 */
export function computeFee(tx: DecodedTx, accountKeys: string[], ownerOf: (program: string) => string | null): bigint {
  let signatures = BigInt(tx.header.numRequiredSignatures);
  let price = 0n;
  let limit: bigint | null = null;
  let defaultLimit = 0n;
  for (const ix of tx.instructions) {
    const program = accountKeys[ix.programIdIndex];
    const d = ix.data;
    if (PRECOMPILES.has(program) && d.length > 0) signatures += BigInt(d[0]);
    if (program === COMPUTE_BUDGET_PROGRAM && d.length > 0) {
      const dv = new DataView(d.buffer, d.byteOffset, d.byteLength);
      if (d[0] === 2 && d.length >= 5) limit = BigInt(dv.getUint32(1, true));
      if (d[0] === 3 && d.length >= 9) price = dv.getBigUint64(1, true);
    }
    defaultLimit +=
      ownerOf(program) === NATIVE_LOADER ? MAX_BUILTIN_ALLOCATION_COMPUTE_UNIT_LIMIT : DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT;
  }
  let units = limit ?? defaultLimit;
  if (units > MAX_COMPUTE_UNIT_LIMIT) units = MAX_COMPUTE_UNIT_LIMIT;
  const priority = (price * units + 999_999n) / 1_000_000n;
  return signatures * LAMPORTS_PER_SIGNATURE + priority;
}
