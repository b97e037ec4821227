/**
 * Light Protocol program ids, PDAs and instruction discriminators the ZK Compression parser recognises.
 *
 * Sources: light-protocol `program-libs/compressed-account/src/{constants,discriminators}.rs`,
 * `programs/system/src/constants.rs`, and the Anchor instruction names of `programs/account-compression` (an Anchor
 * discriminator is sha256("global:<name>")[..8]). Photon's copies: `src/ingester/parser/mod.rs`.
 */

export const LIGHT_SYSTEM_PROGRAM = 'SySTEM1eSU2p4BGQfQpimFEWWSC1XDFeun3Nqzz3rT7';
export const ACCOUNT_COMPRESSION_PROGRAM = 'compr6CUsB5m2jS4Y3831ztGSTnDpnKJTKS95d64XVq';
export const COMPRESSED_TOKEN_PROGRAM = 'cTokenmWW8bLPjZEBAUgYy3zKxQZW6VKi7bqNFEVv3m';
export const LIGHT_REGISTRY_PROGRAM = 'Lighton6oQpVkeewmo2mcPTQQp7kYHr4fWpAgJyEmDX';
export const NOOP_PROGRAM = 'noopb9bkMVfRPU8AsbpTUg8AQkHtKwMYZiFUjNRtMmV';
export const SOLANA_SYSTEM_PROGRAM = '11111111111111111111111111111111';
export const VOTE_PROGRAM = 'Vote111111111111111111111111111111111111111';
/** The light system program's registration with the account compression program (`REGISTERED_PROGRAM_PDA`). */
export const REGISTERED_PROGRAM_PDA = '35hkDgaAKwMCaxRz2ocSZ6NaUrtKkyNqU6c4RV3tYJRh';

/** The Light programs: a transaction invoking none of them cannot carry a ZK Compression event. */
export const LIGHT_PROGRAMS: ReadonlySet<string> = new Set([
  LIGHT_SYSTEM_PROGRAM,
  ACCOUNT_COMPRESSION_PROGRAM,
  COMPRESSED_TOKEN_PROGRAM,
  LIGHT_REGISTRY_PROGRAM,
]);

const d = (...b: number[]) => Uint8Array.from(b);

/** Light system program instructions (8-byte discriminators). */
export const SYSTEM_IX = {
  invoke: d(26, 16, 169, 7, 21, 202, 242, 25),
  invokeCpi: d(49, 212, 191, 129, 39, 194, 43, 196),
  invokeCpiWithReadOnly: d(86, 47, 163, 166, 21, 223, 92, 8),
  invokeCpiWithAccountInfo: d(228, 34, 128, 84, 47, 139, 86, 240),
  /** Not a transaction: creates a CPI context account (light-event skips it). */
  createCpiContextAccount: d(233, 112, 71, 66, 121, 33, 178, 188),
} as const;

/** Account compression program instructions. */
export const ACCOUNT_COMPRESSION_IX = {
  insertIntoQueues: d(180, 143, 159, 153, 35, 46, 248, 163),
  rolloverStateMerkleTreeAndNullifierQueue: d(0x27, 0xa1, 0x67, 0xac, 0x66, 0xc6, 0x78, 0x55),
  rolloverAddressMerkleTreeAndQueue: d(0x18, 0x54, 0x1b, 0x0c, 0x86, 0xa6, 0x17, 0xc0),
  rolloverBatchedStateMerkleTree: d(0xf0, 0x30, 0xdb, 0xb4, 0xce, 0xfd, 0x50, 0x8c),
  rolloverBatchedAddressMerkleTree: d(0x51, 0x77, 0x75, 0x04, 0xc2, 0x24, 0x7f, 0xd0),
} as const;

/** Compressed token account discriminators Photon recognises (`is_c_token_discriminator`). */
export const TOKEN_DATA_DISCRIMINATORS: readonly Uint8Array[] = [
  d(2, 0, 0, 0, 0, 0, 0, 0),
  d(0, 0, 0, 0, 0, 0, 0, 3),
  d(0, 0, 0, 0, 0, 0, 0, 4),
];

/** True when `data` starts with `disc`. */
export function hasDiscriminator(data: Uint8Array, disc: Uint8Array): boolean {
  if (data.length < disc.length) return false;
  for (let i = 0; i < disc.length; i++) if (data[i] !== disc[i]) return false;
  return true;
}

/** Byte equality of two short arrays. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && hasDiscriminator(a, b);
}
