/**
 * Programs the enhanced classifier recognises beyond System/SPL/Bubblegum, with the instructions it treats as swaps
 * or marketplace operations. Pure data plus small matchers; no I/O.
 *
 * Program ids: each one appears in public DEX/label tables of several open-source Solana projects. Most appear in
 * the recorded mainnet block test/fixtures/photon-blocks/index_block_metadata/254170887, where
 * test/enhanced/swaps.test.ts checks that every DEX instruction Jupiter invoked there is recognised as a swap hop.
 * Anchor discriminators are `sha256("global:<instruction name>")[0..8]`; the names are those of the programs'
 * public IDLs. `source` is a value of the TransactionSource enum (types.ts) when the enum has one for the program,
 * otherwise `UNKNOWN` (the enum lists only values of the reference's Source enum stated in the spec).
 */
import { createHash } from 'node:crypto';
import type { Address } from '../core/model.js';
import { MPL_CORE_PROGRAM } from '../parsers/mpl-core/accounts.js';
import { TOKEN_METADATA_PROGRAM } from '../parsers/token-metadata/accounts.js';
import type { TransactionSource } from './types.js';

export { MPL_CORE_PROGRAM, TOKEN_METADATA_PROGRAM };

export const MAGIC_EDEN_V2_PROGRAM = 'M2mx93ekt1fmXSVkTrUL9xVFHkmME8HTUi5Cyc5aF7K';
export const JUPITER_V6_PROGRAM = 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4';
export const JUPITER_V4_PROGRAM = 'JUP4Fb2cqiRUcaTHdrPC8h2gNsA2ETXiPDD33WcGuJB';
export const WRAPPED_SOL_MINT = 'So11111111111111111111111111111111111111112';

/** The 8-byte Anchor instruction discriminator of `name` (snake_case, as in the program source). */
export function anchorDiscriminator(name: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(`global:${name}`).digest().subarray(0, 8));
}

/** Matches instruction data against a table of discriminators; returns the instruction name or null. */
export type InstructionMatcher = (data: Uint8Array) => string | null;

/** Anchor programs: the names whose discriminators are recognised. */
export function anchorMatcher(names: readonly string[]): InstructionMatcher {
  const table = names.map((n) => ({ name: n, disc: anchorDiscriminator(n) }));
  return (data) => {
    if (data.length < 8) return null;
    for (const { name, disc } of table) if (disc.every((b, i) => data[i] === b)) return name;
    return null;
  };
}

/** Programs with a 1-byte instruction index (native Rust / Shank programs). */
export function byteMatcher(names: Readonly<Record<number, string>>): InstructionMatcher {
  return (data) => (data.length >= 1 ? (names[data[0]] ?? null) : null);
}

export interface SwapProgram {
  programId: Address;
  source: TransactionSource;
  programName: string;
  /** An aggregator routes through DEX programs (its own instruction is not a hop of `innerSwaps`). */
  aggregator: boolean;
  /** The instruction name when `data` is one of the program's swap instructions. */
  swap: InstructionMatcher;
}

/**
 * Swap programs. The matcher lists only swap instructions (liquidity, position and market-making instructions of
 * the same programs are not swaps). Seen in the recorded block (routed by Jupiter, or called directly): Jupiter v6
 * `route`/`shared_accounts_route`, Jupiter v4 `route`, Raydium AMM v4 bytes 9/11, Raydium CLMM, Orca Whirlpool,
 * Meteora DLMM, Meteora pools, Lifinity v2 and Invariant `swap`, Phoenix byte 0, Orca token-swap v1/v2, Saros and
 * Saber byte 1, Mercurial byte 4. The other names (Jupiter's exact-out and token-ledger routes, checked against its
 * public IDL's discriminators; Raydium CPMM, Pump.fun, OpenBook v2, Meteora DLMM `swap2`…) are from public IDLs only.
 */
export const SWAP_PROGRAMS: readonly SwapProgram[] = [
  {
    programId: JUPITER_V6_PROGRAM, source: 'JUPITER', programName: 'JUPITER_V6', aggregator: true,
    swap: anchorMatcher(['route', 'shared_accounts_route', 'exact_out_route', 'shared_accounts_exact_out_route', 'route_with_token_ledger', 'shared_accounts_route_with_token_ledger']),
  },
  { programId: JUPITER_V4_PROGRAM, source: 'JUPITER', programName: 'JUPITER_V4', aggregator: true, swap: anchorMatcher(['route']) },
  // Raydium AMM v4 instruction enum: 9 SwapBaseIn, 11 SwapBaseOut (raydium-amm/program/src/instruction.rs).
  { programId: '675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8', source: 'RAYDIUM', programName: 'RAYDIUM_AMM_V4', aggregator: false, swap: byteMatcher({ 9: 'swapBaseIn', 11: 'swapBaseOut' }) },
  { programId: 'CAMMCzo5YL8w4VFF8KVHrK22GGUsp5VTaW7grrKgrWqK', source: 'RAYDIUM', programName: 'RAYDIUM_CLMM', aggregator: false, swap: anchorMatcher(['swap', 'swap_v2', 'swap_router_base_in']) },
  { programId: 'CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C', source: 'RAYDIUM', programName: 'RAYDIUM_CPMM', aggregator: false, swap: anchorMatcher(['swap_base_input', 'swap_base_output']) },
  { programId: 'whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc', source: 'ORCA', programName: 'ORCA_WHIRLPOOLS', aggregator: false, swap: anchorMatcher(['swap', 'swap_v2', 'two_hop_swap', 'two_hop_swap_v2']) },
  // SPL token-swap instruction enum (Orca's token-swap programs, Saros, are deployments of it): 1 Swap.
  { programId: 'DjVE6JNiYqPL2QXyCUUh8rNjHrbz9hXHNYt99MQ59qw1', source: 'ORCA', programName: 'ORCA_TOKEN_SWAP_V1', aggregator: false, swap: byteMatcher({ 1: 'swap' }) },
  { programId: '9W959DqEETiGZocYWCQPaJ6sBmUzgfxXfqGeTEdp3aQP', source: 'ORCA', programName: 'ORCA_TOKEN_SWAP_V2', aggregator: false, swap: byteMatcher({ 1: 'swap' }) },
  { programId: 'LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo', source: 'UNKNOWN', programName: 'METEORA_DLMM', aggregator: false, swap: anchorMatcher(['swap', 'swap_exact_out', 'swap_with_price_impact', 'swap2', 'swap_exact_out2', 'swap_with_price_impact2']) },
  { programId: 'Eo7WjKq67rjJQSZxS6z3YkapzY3eMj6Xy8X5EQVn5UaB', source: 'UNKNOWN', programName: 'METEORA_POOLS', aggregator: false, swap: anchorMatcher(['swap']) },
  { programId: '6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P', source: 'UNKNOWN', programName: 'PUMP_FUN', aggregator: false, swap: anchorMatcher(['buy', 'sell']) },
  // Phoenix instruction enum: 0 Swap (PlaceLimitOrder and the other order-book instructions are not swaps).
  { programId: 'PhoeNiXZ8ByJGLkxNfZRnkUfjvmuYqLR89jjFHGqdXY', source: 'UNKNOWN', programName: 'PHOENIX', aggregator: false, swap: byteMatcher({ 0: 'swap' }) },
  { programId: 'opnb2LAfJYbRMAHHvqjCwQxanZn7ReEHp1k81EohpZb', source: 'UNKNOWN', programName: 'OPENBOOK_V2', aggregator: false, swap: anchorMatcher(['place_take_order']) },
  { programId: '2wT8Yq49kHgDzXuPxZSaeLaH1qbmGXtEyPy64bL7aD3c', source: 'UNKNOWN', programName: 'LIFINITY_V2', aggregator: false, swap: anchorMatcher(['swap']) },
  { programId: 'HyaB3W9q6XdA5xwpU4XnSZV94htfmbmqJXZcEbRaJutt', source: 'UNKNOWN', programName: 'INVARIANT', aggregator: false, swap: anchorMatcher(['swap']) },
  { programId: 'SSwapUtytfBdBn1b9NUGG6foMVPtcWgpRU32HToDUZr', source: 'UNKNOWN', programName: 'SAROS', aggregator: false, swap: byteMatcher({ 1: 'swap' }) },
  { programId: 'SSwpkEEcbUqx4vtoEByFjSkhKdCT862DNVb52nZg1UZ', source: 'UNKNOWN', programName: 'SABER', aggregator: false, swap: byteMatcher({ 1: 'swap' }) },
  { programId: 'MERLuDFBMmsHnsBPZw2sDQZHvXFMwp8EdjudcU2HKky', source: 'UNKNOWN', programName: 'MERCURIAL', aggregator: false, swap: byteMatcher({ 4: 'exchange' }) },
];

export const SWAP_PROGRAM_BY_ID: ReadonlyMap<Address, SwapProgram> = new Map(SWAP_PROGRAMS.map((p) => [p.programId, p]));

/**
 * Candy Machine programs: an NFT_MINT they invoke is attributed to them. Ids as listed by Metaplex's public
 * program lists (v2; v3 = Candy Machine Core with its Candy Guard).
 */
export const CANDY_MACHINE_SOURCES: ReadonlyMap<Address, TransactionSource> = new Map([
  ['cndy3Z4yapfJBmL3ShUp5exZKqR3z33thTzeNMm2gRZ', 'CANDY_MACHINE_V2'],
  ['CndyV3LdqHUfDLmE5naZjVN8rBZz4tqhdefbAnjHG3JR', 'CANDY_MACHINE_V3'],
  ['Guard1JwRhJkVH6XZhzoYxeBVQe872VH6QggF4BWmS9g', 'CANDY_MACHINE_V3'],
]);
