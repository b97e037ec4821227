/**
 * A JSON-RPC `getBlock` result (encoding base64, transactionDetails full) as the geyser plugin's
 * `SubscribeUpdateBlock`: what a Yellowstone server streams for that block. The stand-in serves the localnet's
 * blocks this way; tests also convert the recorded mainnet block and check the client's own (Rust) encoder
 * turns it back into the same JSON.
 */
import {
  getBase58Encoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
} from '@solana/kit';
import type { SubscribeUpdateBlock, SubscribeUpdateTransactionInfo } from '@triton-one/yellowstone-grpc';
import { encodeTransactionError } from './tx-error.js';

const b58 = getBase58Encoder();
const b64 = getBase64Encoder();
const txDecoder = getTransactionDecoder();
const messageDecoder = getCompiledTransactionMessageDecoder();
const VOTE_PROGRAM = 'Vote111111111111111111111111111111111111111';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const bytes58 = (s: string) => Uint8Array.from(b58.encode(s));
const str = (n: unknown) => String(n ?? 0);

function tokenBalances(list: Json[] | null | undefined) {
  return (list ?? []).map((t) => ({
    accountIndex: t.accountIndex,
    mint: t.mint,
    uiTokenAmount: {
      uiAmount: t.uiTokenAmount.uiAmount ?? 0,
      decimals: t.uiTokenAmount.decimals,
      amount: t.uiTokenAmount.amount,
      uiAmountString: t.uiTokenAmount.uiAmountString ?? '',
    },
    owner: t.owner ?? '',
    programId: t.programId ?? '',
  }));
}

/** One `{transaction: [b64, 'base64'], meta, version}` entry at position `index` of its block. */
export function geyserTransaction(entry: Json, index: number): SubscribeUpdateTransactionInfo {
  const wire = Uint8Array.from(b64.encode(entry.transaction[0]));
  const tx = txDecoder.decode(wire);
  const msg = messageDecoder.decode(tx.messageBytes) as unknown as {
    version: 'legacy' | number;
    header: { numSignerAccounts: number; numReadonlySignerAccounts: number; numReadonlyNonSignerAccounts: number };
    staticAccounts: string[];
    lifetimeToken: string;
    instructions: { programAddressIndex: number; accountIndices?: number[]; data?: Uint8Array }[];
    addressTableLookups?: { lookupTableAddress: string; writableIndexes: number[]; readonlyIndexes: number[] }[];
  };
  const staticKeys = msg.staticAccounts.map(String);
  const signatures = Object.values(tx.signatures).map((s) => (s ? Uint8Array.from(s) : new Uint8Array(64)));
  const meta: Json | null = entry.meta ?? null;
  const instructions = msg.instructions.map((ix) => ({
    programIdIndex: ix.programAddressIndex,
    accounts: Uint8Array.from(ix.accountIndices ?? []),
    data: Uint8Array.from(ix.data ?? []),
  }));
  return {
    signature: signatures[0],
    isVote: instructions.length > 0 && instructions.every((ix) => staticKeys[ix.programIdIndex] === VOTE_PROGRAM),
    index: String(index),
    transaction: {
      signatures,
      message: {
        header: {
          numRequiredSignatures: msg.header.numSignerAccounts,
          numReadonlySignedAccounts: msg.header.numReadonlySignerAccounts,
          numReadonlyUnsignedAccounts: msg.header.numReadonlyNonSignerAccounts,
        },
        accountKeys: staticKeys.map(bytes58),
        recentBlockhash: bytes58(msg.lifetimeToken),
        instructions,
        versioned: msg.version !== 'legacy',
        addressTableLookups: (msg.addressTableLookups ?? []).map((l) => ({
          accountKey: bytes58(l.lookupTableAddress),
          writableIndexes: Uint8Array.from(l.writableIndexes),
          readonlyIndexes: Uint8Array.from(l.readonlyIndexes),
        })),
      },
    },
    meta: meta ? {
      err: meta.err == null ? undefined : { err: encodeTransactionError(meta.err) },
      fee: str(meta.fee),
      preBalances: (meta.preBalances ?? []).map(str),
      postBalances: (meta.postBalances ?? []).map(str),
      innerInstructions: (meta.innerInstructions ?? []).map((ii: Json) => ({
        index: ii.index,
        instructions: ii.instructions.map((ix: Json) => ({
          programIdIndex: ix.programIdIndex,
          accounts: Uint8Array.from(ix.accounts),
          data: bytes58(ix.data),
          stackHeight: ix.stackHeight ?? undefined,
        })),
      })),
      innerInstructionsNone: meta.innerInstructions == null,
      logMessages: meta.logMessages ?? [],
      logMessagesNone: meta.logMessages == null,
      preTokenBalances: tokenBalances(meta.preTokenBalances),
      postTokenBalances: tokenBalances(meta.postTokenBalances),
      rewards: [],
      loadedWritableAddresses: (meta.loadedAddresses?.writable ?? []).map(bytes58),
      loadedReadonlyAddresses: (meta.loadedAddresses?.readonly ?? []).map(bytes58),
      returnData: meta.returnData
        ? { programId: bytes58(meta.returnData.programId), data: Uint8Array.from(b64.encode(meta.returnData.data[0])) }
        : undefined,
      returnDataNone: meta.returnData == null,
      computeUnitsConsumed: meta.computeUnitsConsumed == null ? undefined : str(meta.computeUnitsConsumed),
      costUnits: meta.costUnits == null ? undefined : str(meta.costUnits),
    } : undefined,
  };
}

/** A `getBlock` result of `slot` as the plugin's block update (transactions in block order). */
export function geyserBlock(result: Json, slot: number): SubscribeUpdateBlock {
  const transactions = (result.transactions as Json[]).map((t, i) => geyserTransaction(t, i));
  return {
    slot: String(slot),
    blockhash: result.blockhash,
    rewards: { rewards: [], numPartitions: undefined },
    blockTime: result.blockTime == null ? undefined : { timestamp: String(result.blockTime) },
    blockHeight: result.blockHeight == null ? undefined : { blockHeight: String(result.blockHeight) },
    parentSlot: String(result.parentSlot),
    parentBlockhash: result.previousBlockhash,
    executedTransactionCount: String(transactions.length),
    transactions,
    updatedAccountCount: '0',
    accounts: [],
    entriesCount: '0',
    entries: [],
  };
}
