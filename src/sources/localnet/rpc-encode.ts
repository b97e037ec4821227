/**
 * Renders localnet records in the exact Solana JSON-RPC wire shapes (`getBlock`, `getTransaction`,
 * `simulateTransaction`, `getAccountInfo`), plus a JSON serializer that writes `bigint` as exact JSON numbers
 * (u64 values such as a faucet balance or `rentEpoch` exceed 2^53, and the real RPC emits them as numbers).
 */
import { bytesToBase58, bytesToBase64 } from '../../core/encoding.js';
import { parsedInnerJson, parsedTransactionJson } from './rpc-parsed-tx.js';
import { zstdCompress } from '../../core/zstd.js';
import type {
  LocalAccount, LocalBlock, LocalInnerInstructions, LocalInstruction, LocalReturnData, LocalSimulation,
  LocalTokenBalance, LocalTx,
} from './types.js';

export type TxEncoding = 'json' | 'jsonParsed' | 'base64' | 'base58';
export type TransactionDetails = 'full' | 'signatures' | 'none' | 'accounts';

const BIGINT_MARK = '\u0000bigint:';

/** `JSON.stringify` that writes bigints as bare integer literals. */
export function stringifyJson(value: unknown): string {
  const text = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${BIGINT_MARK}${v}` : v));
  return text.replace(/"\\u0000bigint:(-?\d+)"/g, '$1');
}

/** u64::MAX, what agave reports as `rentEpoch` for rent-exempt accounts. */
export const RENT_EXEMPT_EPOCH = 18446744073709551615n;

function instructionJson(ix: LocalInstruction) {
  return { programIdIndex: ix.programIdIndex, accounts: ix.accounts, data: bytesToBase58(ix.data), stackHeight: ix.stackHeight };
}

function innerJson(groups: LocalInnerInstructions[]) {
  return groups.map((g) => ({ index: g.index, instructions: g.instructions.map(instructionJson) }));
}

function returnDataJson(rd: LocalReturnData | null) {
  return rd ? { programId: rd.programId, data: [bytesToBase64(rd.data), 'base64'] } : null;
}

/** UI form of a token amount; a zero amount has `uiAmount: null` as in blockstore-served blocks. */
export function uiTokenAmount(amount: bigint, decimals: number) {
  const s = amount.toString().padStart(decimals + 1, '0');
  const whole = decimals ? s.slice(0, -decimals) : s;
  const frac = decimals ? s.slice(-decimals).replace(/0+$/, '') : '';
  const uiAmountString = frac ? `${whole}.${frac}` : whole;
  return { amount: amount.toString(), decimals, uiAmount: amount === 0n ? null : Number(uiAmountString), uiAmountString };
}

function tokenBalanceJson(b: LocalTokenBalance) {
  return { accountIndex: b.accountIndex, mint: b.mint, owner: b.owner, programId: b.programId, uiTokenAmount: uiTokenAmount(b.amount, b.decimals) };
}

/**
 * The `meta` object (UiTransactionStatusMeta); `verbose: false` is the `transactionDetails: "accounts"` subset;
 * `parsed` (the `jsonParsed` encoding): inner instructions parsed (`rpc-parsed-tx.ts`), no `loadedAddresses` (the
 * account keys carry them).
 */
export function metaJson(tx: LocalTx, verbose = true, parsed = false): Record<string, unknown> {
  const m = tx.meta;
  const meta: Record<string, unknown> = {
    err: m.err,
    status: m.err === null ? { Ok: null } : { Err: m.err },
    fee: m.fee,
    preBalances: m.preBalances,
    postBalances: m.postBalances,
  };
  if (verbose) {
    meta.innerInstructions = parsed ? parsedInnerJson(tx) : innerJson(m.innerInstructions);
    meta.logMessages = m.logMessages;
  }
  meta.preTokenBalances = m.preTokenBalances.map(tokenBalanceJson);
  meta.postTokenBalances = m.postTokenBalances.map(tokenBalanceJson);
  meta.rewards = [];
  if (verbose) {
    if (!parsed) meta.loadedAddresses = tx.loadedAddresses;
    meta.computeUnitsConsumed = m.computeUnitsConsumed;
    if (m.returnData) meta.returnData = returnDataJson(m.returnData);
  }
  return meta;
}

/** The `transaction` field in the requested encoding. */
export function transactionJson(tx: LocalTx, encoding: TxEncoding): unknown {
  if (encoding === 'base64') return [bytesToBase64(tx.wire), 'base64'];
  if (encoding === 'base58') return [bytesToBase58(tx.wire), 'base58'];
  if (encoding === 'jsonParsed') return parsedTransactionJson(tx);
  const message: Record<string, unknown> = {
    accountKeys: tx.staticKeys,
    header: tx.header,
    recentBlockhash: tx.recentBlockhash,
    instructions: tx.instructions.map(instructionJson),
  };
  if (tx.version === 0) message.addressTableLookups = tx.addressTableLookups;
  return { signatures: tx.signatures, message };
}

/** `transactionDetails: "accounts"`: keys annotated with signer/writable/source, no instructions. */
function accountsTransactionJson(tx: LocalTx) {
  const h = tx.header;
  const n = tx.staticKeys.length;
  const accountKeys = [
    ...tx.staticKeys.map((pubkey, i) => ({
      pubkey,
      signer: i < h.numRequiredSignatures,
      writable: i < h.numRequiredSignatures ? i < h.numRequiredSignatures - h.numReadonlySignedAccounts : i < n - h.numReadonlyUnsignedAccounts,
      source: 'transaction',
    })),
    ...tx.loadedAddresses.writable.map((pubkey) => ({ pubkey, signer: false, writable: true, source: 'lookupTable' })),
    ...tx.loadedAddresses.readonly.map((pubkey) => ({ pubkey, signer: false, writable: false, source: 'lookupTable' })),
  ];
  return { accountKeys, signatures: tx.signatures };
}

/** One `{transaction, meta, version}` entry of a block. */
export function blockTransactionJson(tx: LocalTx, encoding: TxEncoding, details: 'full' | 'accounts') {
  return details === 'accounts'
    ? { transaction: accountsTransactionJson(tx), meta: metaJson(tx, false), version: tx.version }
    : { transaction: transactionJson(tx, encoding), meta: metaJson(tx, true, encoding === 'jsonParsed'), version: tx.version };
}

/** `getTransaction` result. */
export function getTransactionJson(tx: LocalTx, encoding: TxEncoding) {
  return { slot: tx.slot, transaction: transactionJson(tx, encoding), meta: metaJson(tx, true, encoding === 'jsonParsed'), version: tx.version, blockTime: tx.blockTime };
}

/** `getBlock` result. */
export function blockJson(block: LocalBlock, opts: { encoding: TxEncoding; transactionDetails: TransactionDetails; rewards: boolean }) {
  const out: Record<string, unknown> = {
    blockHeight: block.blockHeight,
    blockTime: block.blockTime,
    blockhash: block.blockhash,
    parentSlot: block.parentSlot,
    previousBlockhash: block.previousBlockhash,
  };
  if (opts.transactionDetails === 'full' || opts.transactionDetails === 'accounts') {
    out.transactions = block.transactions.map((tx) => blockTransactionJson(tx, opts.encoding, opts.transactionDetails as 'full' | 'accounts'));
  } else if (opts.transactionDetails === 'signatures') {
    out.signatures = block.transactions.map((tx) => tx.signature);
  }
  if (opts.rewards) out.rewards = [];
  return out;
}

/** `binary` is the legacy default: a bare base58 string instead of a `[data, encoding]` pair. */
export type AccountEncoding = 'binary' | 'base58' | 'base64' | 'base64+zstd' | 'jsonParsed';

/**
 * A `UiAccount` (`getAccountInfo` value). Under `jsonParsed`, `parsed` (the decoded `{program, parsed, space}`) is
 * the data when given; otherwise the data falls back to base64, as the RPC does for accounts it cannot parse.
 */
export function accountJson(
  acc: LocalAccount | null,
  encoding: AccountEncoding,
  slice?: { offset: number; length: number },
  parsed?: Record<string, unknown> | null,
) {
  if (!acc) return null;
  const data = slice ? acc.data.subarray(slice.offset, slice.offset + slice.length) : acc.data;
  return {
    data:
      encoding === 'jsonParsed' && parsed ? parsed
      : encoding === 'binary' ? bytesToBase58(data)
      : encoding === 'base58' ? [bytesToBase58(data), 'base58']
      : encoding === 'base64+zstd' ? [bytesToBase64(zstdCompress(data)), 'base64+zstd']
      : [bytesToBase64(data), 'base64'],
    executable: acc.executable,
    lamports: acc.lamports,
    owner: acc.owner,
    rentEpoch: RENT_EXEMPT_EPOCH,
    space: acc.data.length,
  };
}

/** `simulateTransaction` value (also the `data` of a -32002 preflight failure, where `innerInstructions` is null). */
export function simulationJson(
  sim: LocalSimulation,
  opts: { innerInstructions: boolean; accounts: (LocalAccount | null)[] | null; accountEncoding: AccountEncoding },
) {
  return {
    accounts: opts.accounts ? opts.accounts.map((a) => accountJson(a, opts.accountEncoding)) : null,
    err: sim.err,
    innerInstructions: opts.innerInstructions ? innerJson(sim.innerInstructions) : null,
    logs: sim.logs,
    replacementBlockhash: sim.replacementBlockhash,
    returnData: returnDataJson(sim.returnData),
    unitsConsumed: sim.unitsConsumed,
  };
}
