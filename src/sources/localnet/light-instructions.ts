/**
 * @solana/kit instruction builders for the Light operations the localnet can run without a prover or an
 * indexer: compress SOL, create a mint with its compressed-token pool, mint compressed tokens, and spend (by
 * index, V2 trees only) compressed SOL and compressed tokens that are still in a V2 output queue.
 *
 * Wire formats follow @lightprotocol/stateless.js and @lightprotocol/compressed-token 0.23 (Anchor/borsh):
 * - light system `invoke`: discriminator, u32 length, `InstructionDataInvoke` { proof?, inputs[], outputs[],
 *   relay_fee?, new_address_params[], compress_or_decompress_lamports?, is_compress }; accounts fee payer,
 *   authority, registered program PDA, noop, account-compression authority, account compression, sol pool PDA
 *   (or the program id), decompression recipient (or the program id), system program, then the trees/queues.
 * - compressed token `mint_to`: discriminator, { recipients[], amounts[], lamports? } (no length prefix);
 *   `create_token_pool`: discriminator only; `transfer`: discriminator, u32 length,
 *   `CompressedTokenInstructionDataTransfer`.
 * A test builds each instruction with both libraries and compares data and accounts. One deliberate difference:
 * where the JS SDKs fill an absent optional account with the invoked program's id marked writable, these mark
 * it read-only (kit refuses a writable invoked program; the runtime demotes it to read-only anyway, so the
 * programs see the same thing).
 *
 * Costs seen on the localnet, besides the signature fee: every output pays its tree's rollover fee to the tree
 * account (V1: 300 lamports, V2: 1) and a V2 transaction pays a 5 000-lamport network fee, all from the fee
 * payer. Compute: compress SOL ≈ 51k CU (V1) / 16k (V2), by-index SOL transfer ≈ 29k, token mint_to ≈ 34k (V2) /
 * 76k (V1), both one output, by-index token transfer ≈ 51k — under the default 200k per instruction.
 */
import {
  AccountRole, address as toAddress, addEncoderSizePrefix, fixEncoderSize, getAddressEncoder, getArrayEncoder,
  getBooleanEncoder, getBytesEncoder, getNullableEncoder, getProgramDerivedAddress, getStructEncoder, getU16Encoder,
  getU32Encoder, getU64Encoder, getU8Encoder, type AccountMeta, type AccountSignerMeta, type Address, type Encoder,
  type Instruction, type TransactionSigner,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import { getInitializeMint2Instruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { SYSTEM_PROGRAM } from '../../core/programs.js';
import {
  ACCOUNT_COMPRESSION_PROGRAM, COMPRESSED_TOKEN_CPI_AUTHORITY, COMPRESSED_TOKEN_PROGRAM, DEFAULT_STATE_TREE_V2,
  LIGHT_ACCOUNT_COMPRESSION_AUTHORITY, LIGHT_NOOP_PROGRAM, LIGHT_REGISTERED_PROGRAM_PDA, LIGHT_SOL_POOL_PDA,
  LIGHT_SYSTEM_PROGRAM, type LightStateTree,
} from './light.js';

const INVOKE = new Uint8Array([26, 16, 169, 7, 21, 202, 242, 25]);
const CREATE_TOKEN_POOL = new Uint8Array([23, 169, 27, 122, 147, 169, 209, 152]);
const MINT_TO = new Uint8Array([241, 34, 48, 186, 37, 179, 123, 192]);
const TRANSFER = new Uint8Array([163, 52, 200, 231, 140, 3, 69, 186]);
/** Size of an SPL Token mint account. */
const MINT_SIZE = 82;

// ---- borsh encoders (kit codecs: nullable = Option with a u8 tag, arrays = Vec with a u32 length) ----

const bytes32 = fixEncoderSize(getBytesEncoder(), 32);
const vecU8 = addEncoderSizePrefix(getBytesEncoder(), getU32Encoder());

const compressedAccountEncoder = getStructEncoder([
  ['owner', getAddressEncoder()],
  ['lamports', getU64Encoder()],
  ['address', getNullableEncoder(bytes32)],
  ['data', getNullableEncoder(getStructEncoder([
    ['discriminator', fixEncoderSize(getBytesEncoder(), 8)],
    ['data', vecU8],
    ['dataHash', bytes32],
  ]))],
]);

const merkleContextEncoder = getStructEncoder([
  ['merkleTreePubkeyIndex', getU8Encoder()],
  ['queuePubkeyIndex', getU8Encoder()],
  ['leafIndex', getU32Encoder()],
  ['proveByIndex', getBooleanEncoder()],
]);

const proofEncoder = getStructEncoder([
  ['a', fixEncoderSize(getBytesEncoder(), 32)],
  ['b', fixEncoderSize(getBytesEncoder(), 64)],
  ['c', fixEncoderSize(getBytesEncoder(), 32)],
]);

const newAddressParamsEncoder = getStructEncoder([
  ['seed', bytes32],
  ['addressQueueAccountIndex', getU8Encoder()],
  ['addressMerkleTreeAccountIndex', getU8Encoder()],
  ['addressMerkleTreeRootIndex', getU16Encoder()],
]);

type CompressedAccountData = {
  owner: Address;
  lamports: bigint;
  address: Uint8Array | null;
  data: { discriminator: Uint8Array; data: Uint8Array; dataHash: Uint8Array } | null;
};

const invokeEncoder: Encoder<{
  proof: { a: Uint8Array; b: Uint8Array; c: Uint8Array } | null;
  inputs: { account: CompressedAccountData; merkleContext: { merkleTreePubkeyIndex: number; queuePubkeyIndex: number; leafIndex: number; proveByIndex: boolean }; rootIndex: number; readOnly: boolean }[];
  outputs: { account: CompressedAccountData; merkleTreeIndex: number }[];
  relayFee: bigint | null;
  newAddressParams: { seed: Uint8Array; addressQueueAccountIndex: number; addressMerkleTreeAccountIndex: number; addressMerkleTreeRootIndex: number }[];
  compressOrDecompressLamports: bigint | null;
  isCompress: boolean;
}> = getStructEncoder([
  ['proof', getNullableEncoder(proofEncoder)],
  ['inputs', getArrayEncoder(getStructEncoder([
    ['account', compressedAccountEncoder],
    ['merkleContext', merkleContextEncoder],
    ['rootIndex', getU16Encoder()],
    ['readOnly', getBooleanEncoder()],
  ]))],
  ['outputs', getArrayEncoder(getStructEncoder([['account', compressedAccountEncoder], ['merkleTreeIndex', getU8Encoder()]]))],
  ['relayFee', getNullableEncoder(getU64Encoder())],
  ['newAddressParams', getArrayEncoder(newAddressParamsEncoder)],
  ['compressOrDecompressLamports', getNullableEncoder(getU64Encoder())],
  ['isCompress', getBooleanEncoder()],
]);

const mintToEncoder = getStructEncoder([
  ['recipients', getArrayEncoder(getAddressEncoder())],
  ['amounts', getArrayEncoder(getU64Encoder())],
  ['lamports', getNullableEncoder(getU64Encoder())],
]);

const tokenTransferEncoder = getStructEncoder([
  ['proof', getNullableEncoder(proofEncoder)],
  ['mint', getAddressEncoder()],
  ['delegatedTransfer', getNullableEncoder(getStructEncoder([
    ['owner', getAddressEncoder()],
    ['delegateChangeAccountIndex', getNullableEncoder(getU8Encoder())],
  ]))],
  ['inputs', getArrayEncoder(getStructEncoder([
    ['amount', getU64Encoder()],
    ['delegateIndex', getNullableEncoder(getU8Encoder())],
    ['merkleContext', merkleContextEncoder],
    ['rootIndex', getU16Encoder()],
    ['lamports', getNullableEncoder(getU64Encoder())],
    ['tlv', getNullableEncoder(vecU8)],
  ]))],
  ['outputs', getArrayEncoder(getStructEncoder([
    ['owner', getAddressEncoder()],
    ['amount', getU64Encoder()],
    ['lamports', getNullableEncoder(getU64Encoder())],
    ['merkleTreeIndex', getU8Encoder()],
    ['tlv', getNullableEncoder(vecU8)],
  ]))],
  ['isCompress', getBooleanEncoder()],
  ['compressOrDecompressAmount', getNullableEncoder(getU64Encoder())],
  ['cpiContext', getNullableEncoder(getStructEncoder([
    ['setContext', getBooleanEncoder()],
    ['firstSetContext', getBooleanEncoder()],
    ['cpiContextAccountIndex', getU8Encoder()],
  ]))],
  ['lamportsChangeAccountMerkleTreeIndex', getNullableEncoder(getU8Encoder())],
]);

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Anchor instruction data with a u32 length prefix (the light system `invoke` and token `transfer` formats). */
function withLength(discriminator: Uint8Array, body: Uint8Array): Uint8Array {
  const len = new Uint8Array(4);
  new DataView(len.buffer).setUint32(0, body.length, true);
  return concat(discriminator, len, body);
}

// ---- account metas ----

const ro = (a: string): AccountMeta => ({ address: toAddress(a), role: AccountRole.READONLY });
const rw = (a: string): AccountMeta => ({ address: toAddress(a), role: AccountRole.WRITABLE });
const signer = (s: TransactionSigner, writable: boolean): AccountSignerMeta => ({
  address: s.address, role: writable ? AccountRole.WRITABLE_SIGNER : AccountRole.READONLY_SIGNER, signer: s,
});

/** Where outputs of `tree` are written: the tree itself (V1) or its output queue (V2). */
export function outputAccountOf(tree: LightStateTree): string {
  return tree.version === 2 ? tree.queue : tree.tree;
}

/** Light system `invoke` accounts before the trees. */
function invokeAccounts(payer: TransactionSigner, authority: TransactionSigner, solPool: boolean): AccountMeta[] {
  return [
    signer(payer, true), signer(authority, false), ro(LIGHT_REGISTERED_PROGRAM_PDA), ro(LIGHT_NOOP_PROGRAM),
    ro(LIGHT_ACCOUNT_COMPRESSION_AUTHORITY), ro(ACCOUNT_COMPRESSION_PROGRAM),
    solPool ? rw(LIGHT_SOL_POOL_PDA) : ro(LIGHT_SYSTEM_PROGRAM), // sol pool, or none
    ro(LIGHT_SYSTEM_PROGRAM), // no decompression recipient
    ro(SYSTEM_PROGRAM),
  ];
}

const solAccount = (owner: string, lamports: bigint): CompressedAccountData => ({ owner: toAddress(owner), lamports, address: null, data: null });

/**
 * Compresses `lamports` of the payer's SOL into one compressed account owned by `recipient` (default: the
 * payer) in `outputTree` (default: the first V2 tree). The first compression on a chain creates the SOL pool
 * PDA, so it must move at least the rent-exempt minimum (890 880 lamports).
 */
export function getCompressSolInstruction(input: {
  payer: TransactionSigner;
  lamports: bigint;
  recipient?: Address | string;
  outputTree?: LightStateTree;
}): Instruction {
  const tree = input.outputTree ?? DEFAULT_STATE_TREE_V2;
  const data = invokeEncoder.encode({
    proof: null,
    inputs: [],
    outputs: [{ account: solAccount(input.recipient ?? input.payer.address, input.lamports), merkleTreeIndex: 0 }],
    relayFee: null,
    newAddressParams: [],
    compressOrDecompressLamports: input.lamports,
    isCompress: true,
  });
  return {
    programAddress: toAddress(LIGHT_SYSTEM_PROGRAM),
    accounts: [...invokeAccounts(input.payer, input.payer, true), rw(outputAccountOf(tree))],
    data: withLength(INVOKE, new Uint8Array(data)),
  };
}

/** A compressed account that is still in a V2 output queue, spendable by index (no proof). */
export interface QueuedCompressedInput {
  /** Leaf index the account got (the output queue's next index when it was created). */
  leafIndex: number;
  /** The V2 tree whose output queue holds it. */
  tree: LightStateTree;
}

function assertByIndex(input: QueuedCompressedInput): void {
  if (input.tree.version !== 2) throw new Error('spending by index needs a V2 tree; V1 spends need a validity proof from a prover');
}

/**
 * Transfers compressed SOL: spends one compressed SOL account of `owner` that is still in a V2 output queue
 * (by index, no proof) into `lamports` for `recipient` and the change back to `owner`, both in the same tree's
 * output queue (change first, then the recipient, like stateless.js). `input.lamports` must be the account's
 * exact balance (the program recomputes its hash from it).
 */
export function getTransferCompressedSolByIndexInstruction(input: {
  payer: TransactionSigner;
  owner: TransactionSigner;
  from: QueuedCompressedInput & { lamports: bigint };
  recipient: Address | string;
  lamports: bigint;
}): Instruction {
  assertByIndex(input.from);
  const change = input.from.lamports - input.lamports;
  if (change < 0n) throw new Error(`insufficient compressed lamports: ${input.from.lamports} < ${input.lamports}`);
  const outputs = change === 0n
    ? [{ account: solAccount(input.recipient, input.lamports), merkleTreeIndex: 1 }]
    : [{ account: solAccount(input.owner.address, change), merkleTreeIndex: 1 }, { account: solAccount(input.recipient, input.lamports), merkleTreeIndex: 1 }];
  const data = invokeEncoder.encode({
    proof: null,
    inputs: [{
      account: solAccount(input.owner.address, input.from.lamports),
      merkleContext: { merkleTreePubkeyIndex: 0, queuePubkeyIndex: 1, leafIndex: input.from.leafIndex, proveByIndex: true },
      rootIndex: 0,
      readOnly: false,
    }],
    outputs,
    relayFee: null,
    newAddressParams: [],
    compressOrDecompressLamports: null,
    isCompress: false,
  });
  return {
    programAddress: toAddress(LIGHT_SYSTEM_PROGRAM),
    accounts: [...invokeAccounts(input.payer, input.owner, false), rw(input.from.tree.tree), rw(input.from.tree.queue)],
    data: withLength(INVOKE, new Uint8Array(data)),
  };
}

/** The compressed-token pool (SPL interface) PDA of `mint`, index 0: PDA(["pool", mint], compressed token). */
export async function getCompressedTokenPoolAddress(mint: Address | string): Promise<Address> {
  const [pda] = await getProgramDerivedAddress({
    programAddress: toAddress(COMPRESSED_TOKEN_PROGRAM),
    seeds: [new TextEncoder().encode('pool'), getAddressEncoder().encode(toAddress(mint))],
  });
  return pda;
}

/**
 * Creates an SPL Token mint and registers it with the compressed token program (its token pool), as
 * `CompressedTokenProgram.createMint`: system `createAccount`, `initializeMint2`, `create_token_pool`.
 * `rentLamports` is the rent-exempt minimum of an 82-byte account.
 */
export async function getCreateCompressedMintInstructions(input: {
  payer: TransactionSigner;
  mint: TransactionSigner;
  mintAuthority: Address | string;
  freezeAuthority?: Address | string | null;
  decimals: number;
  rentLamports: bigint;
}): Promise<Instruction[]> {
  const pool = await getCompressedTokenPoolAddress(input.mint.address);
  return [
    getCreateAccountInstruction({
      payer: input.payer, newAccount: input.mint, lamports: input.rentLamports, space: MINT_SIZE, programAddress: TOKEN_PROGRAM_ADDRESS,
    }),
    getInitializeMint2Instruction({
      mint: input.mint.address, decimals: input.decimals, mintAuthority: toAddress(input.mintAuthority),
      freezeAuthority: input.freezeAuthority ? toAddress(input.freezeAuthority) : null,
    }),
    {
      programAddress: toAddress(COMPRESSED_TOKEN_PROGRAM),
      accounts: [
        signer(input.payer, true), { address: pool, role: AccountRole.WRITABLE }, ro(SYSTEM_PROGRAM), rw(input.mint.address),
        ro(TOKEN_PROGRAM_ADDRESS), ro(COMPRESSED_TOKEN_CPI_AUTHORITY),
      ],
      data: CREATE_TOKEN_POOL,
    },
  ];
}

/** Compressed token accounts before the trees (mint_to and transfer share the Light part). */
function lightCpiAccounts(): AccountMeta[] {
  return [
    ro(LIGHT_SYSTEM_PROGRAM), ro(LIGHT_REGISTERED_PROGRAM_PDA), ro(LIGHT_NOOP_PROGRAM),
    ro(LIGHT_ACCOUNT_COMPRESSION_AUTHORITY), ro(ACCOUNT_COMPRESSION_PROGRAM),
  ];
}

/**
 * Mints compressed tokens of an SPL mint registered with the compressed token program (the minted amount goes
 * to the mint's token pool; each recipient gets one compressed token account in `outputTree`, default the
 * first V2 tree). `mintAuthority` signs.
 */
export async function getCompressedMintToInstruction(input: {
  payer: TransactionSigner;
  mint: Address | string;
  mintAuthority: TransactionSigner;
  recipients: { owner: Address | string; amount: bigint }[];
  outputTree?: LightStateTree;
}): Promise<Instruction> {
  const tree = input.outputTree ?? DEFAULT_STATE_TREE_V2;
  const pool = await getCompressedTokenPoolAddress(input.mint);
  const data = mintToEncoder.encode({
    recipients: input.recipients.map((r) => toAddress(r.owner)),
    amounts: input.recipients.map((r) => r.amount),
    lamports: null,
  });
  return {
    programAddress: toAddress(COMPRESSED_TOKEN_PROGRAM),
    accounts: [
      signer(input.payer, true), signer(input.mintAuthority, false), ro(COMPRESSED_TOKEN_CPI_AUTHORITY), rw(String(input.mint)),
      { address: pool, role: AccountRole.WRITABLE }, ro(TOKEN_PROGRAM_ADDRESS), ...lightCpiAccounts(),
      rw(outputAccountOf(tree)), ro(COMPRESSED_TOKEN_PROGRAM), ro(SYSTEM_PROGRAM),
      ro(COMPRESSED_TOKEN_PROGRAM), // no sol pool
    ],
    data: concat(MINT_TO, new Uint8Array(data)),
  };
}

/**
 * Transfers compressed tokens: spends one compressed token account of `owner` (no delegate, no lamports) that
 * is still in a V2 output queue, by index, into `amount` for `recipient` and the change back to `owner` in the
 * same tree's output queue (change first, like @lightprotocol/compressed-token). `from.amount` must be the
 * account's exact balance.
 */
export function getTransferCompressedTokensByIndexInstruction(input: {
  payer: TransactionSigner;
  owner: TransactionSigner;
  mint: Address | string;
  from: QueuedCompressedInput & { amount: bigint };
  recipient: Address | string;
  amount: bigint;
}): Instruction {
  assertByIndex(input.from);
  const change = input.from.amount - input.amount;
  if (change < 0n) throw new Error(`insufficient compressed token balance: ${input.from.amount} < ${input.amount}`);
  const out = (owner: string, amount: bigint) => ({ owner: toAddress(owner), amount, lamports: null, merkleTreeIndex: 1, tlv: null });
  const data = tokenTransferEncoder.encode({
    proof: null,
    mint: toAddress(input.mint),
    delegatedTransfer: null,
    inputs: [{
      amount: input.from.amount,
      delegateIndex: null,
      merkleContext: { merkleTreePubkeyIndex: 0, queuePubkeyIndex: 1, leafIndex: input.from.leafIndex, proveByIndex: true },
      rootIndex: 0,
      lamports: null,
      tlv: null,
    }],
    outputs: change === 0n ? [out(String(input.recipient), input.amount)] : [out(input.owner.address, change), out(String(input.recipient), input.amount)],
    isCompress: false,
    compressOrDecompressAmount: null,
    cpiContext: null,
    lamportsChangeAccountMerkleTreeIndex: null,
  });
  return {
    programAddress: toAddress(COMPRESSED_TOKEN_PROGRAM),
    accounts: [
      signer(input.payer, true), signer(input.owner, false), ro(COMPRESSED_TOKEN_CPI_AUTHORITY), ...lightCpiAccounts(),
      ro(COMPRESSED_TOKEN_PROGRAM),
      ro(COMPRESSED_TOKEN_PROGRAM), ro(COMPRESSED_TOKEN_PROGRAM), ro(COMPRESSED_TOKEN_PROGRAM), // no pool, no SPL account, no token program
      ro(SYSTEM_PROGRAM), rw(input.from.tree.tree), rw(input.from.tree.queue),
    ],
    data: withLength(TRANSFER, new Uint8Array(data)),
  };
}
