/**
 * Executes (or simulates) one decoded transaction on LiteSVM and builds the RPC-equivalent status meta.
 *
 * LiteSVM returns logs, compute units, inner instructions and return data, but no fee, balances or token
 * balances; those are recomputed here from account reads taken immediately before and after execution.
 * LiteSVM's own blockhash check is disabled (it only accepts its single latest blockhash); the chain checks
 * against the last 150 block hashes instead, like a real bank.
 */
import { FailedTransactionMetadata, type LiteSVM, type TransactionMetadata } from 'litesvm';
import { address as toAddress, type Transaction } from '@solana/kit';
import { bytesToBase58 } from '../../core/encoding.js';
import { collectTokenBalances, computeFee } from './balances.js';
import { liteSvmErrorToRpc } from './tx-error.js';
import type {
  DecodedTx, LocalAccount, LocalInnerInstructions, LocalReturnData, LocalSimulation, LocalTx, RpcTransactionError,
} from './types.js';
import { extractMemo, resolveLoadedAddresses } from './wire.js';

export interface ExecContext {
  svm: LiteSVM;
  /** Whether `blockhash` is one of the recent block hashes a transaction may reference. */
  isRecentBlockhash(blockhash: string): boolean;
  /** Whether a transaction with this signature already landed (status cache). */
  isDuplicate(signature: string): boolean;
  warn?(message: string, context: Record<string, unknown>): void;
}

/** A committed transaction minus its placement in a block (filled in by the chain). */
export type ExecutedTx = Omit<LocalTx, 'slot' | 'indexInBlock' | 'blockTime'>;

/**
 * A committed outcome carries `writes`: `[address, after, before]`, the states after and before execution of every
 * account the transaction could write (its writable keys, static and loaded; `null` when it does not exist), for the
 * chain's account indexes and its account history (`account-history.ts`).
 */
export type ExecOutcome =
  | { committed: true; tx: ExecutedTx; writes: [string, LocalAccount | null, LocalAccount | null][] }
  | { committed: false; err: RpcTransactionError };

/** Whether account key `i` is writable per the message header (static keys), or a writable lookup-table key. */
export function isWritable(tx: DecodedTx, i: number): boolean {
  const h = tx.header;
  const n = tx.staticKeys.length;
  if (i >= n) return i < n + tx.addressTableLookups.reduce((k, l) => k + l.writableIndexes.length, 0);
  return i < h.numRequiredSignatures ? i < h.numRequiredSignatures - h.numReadonlySignedAccounts : i < n - h.numReadonlyUnsignedAccounts;
}

export function readAccount(svm: LiteSVM, address: string): LocalAccount | null {
  const a = svm.getAccount(toAddress(address));
  if (!a.exists) return null;
  return { lamports: BigInt(a.lamports), data: a.data as Uint8Array, owner: a.programAddress, executable: a.executable };
}

function innerInstructionsOf(meta: TransactionMetadata): LocalInnerInstructions[] {
  const out: LocalInnerInstructions[] = [];
  meta.innerInstructions().forEach((group, index) => {
    if (group.length === 0) return; // the RPC lists only instructions that made CPI calls
    out.push({
      index,
      instructions: group.map((inner) => {
        const ix = inner.instruction();
        return {
          programIdIndex: ix.programIdIndex(),
          accounts: Array.from(ix.accounts()),
          data: new Uint8Array(ix.data()),
          stackHeight: inner.stackHeight(),
        };
      }),
    });
  });
  return out;
}

function returnDataOf(meta: TransactionMetadata): LocalReturnData | null {
  const rd = meta.returnData();
  const data = rd.data();
  // agave reports return data only when a program set non-empty data.
  return data.length ? { programId: bytesToBase58(rd.programId()), data: new Uint8Array(data) } : null;
}

/** Checks a real bank makes before loading a transaction; failures are never committed. */
function precheck(ctx: ExecContext, tx: DecodedTx): RpcTransactionError | null {
  if (!ctx.isRecentBlockhash(tx.recentBlockhash)) return 'BlockhashNotFound';
  if (ctx.isDuplicate(tx.signatures[0])) return 'AlreadyProcessed';
  return null;
}

/**
 * Runs the transaction. A failed execution is committed (recorded with its fee) when LiteSVM charged the fee
 * payer — exactly the case of a real cluster, where pre-execution failures (bad blockhash, signature, fee
 * payer unable to pay…) are dropped and everything else lands with `meta.err`.
 */
export function executeTransaction(ctx: ExecContext, tx: DecodedTx, kitTx: Transaction): ExecOutcome {
  const pre = precheck(ctx, tx);
  if (pre) return { committed: false, err: pre };
  const svm = ctx.svm;
  const read = (a: string) => readAccount(svm, a);
  const loaded = resolveLoadedAddresses(tx, read);
  if ('err' in loaded) return { committed: false, err: loaded.err };
  const keys = [...tx.staticKeys, ...loaded.writable, ...loaded.readonly];

  const preAccounts = keys.map(read);
  const preBalances = preAccounts.map((a) => a?.lamports ?? 0n);
  const preTokenBalances = collectTokenBalances(keys, read);
  const programOwners = new Map(tx.instructions.map((ix) => [keys[ix.programIdIndex], read(keys[ix.programIdIndex])?.owner ?? null]));

  let result: TransactionMetadata | FailedTransactionMetadata;
  try {
    result = svm.sendTransaction(kitTx);
  } catch {
    // The litesvm wrapper throws when a signature is missing, before reaching the runtime.
    return { committed: false, err: 'SignatureFailure' };
  }
  const meta = result instanceof FailedTransactionMetadata ? result.meta() : result;
  const postAccounts = keys.map(read);
  const postBalances = postAccounts.map((a) => a?.lamports ?? 0n);
  const err = result instanceof FailedTransactionMetadata ? liteSvmErrorToRpc(result.err()) : null;
  if (err !== null && postBalances[0] === preBalances[0]) return { committed: false, err };

  let fee = computeFee(tx, keys, (p) => programOwners.get(p) ?? null);
  if (err !== null) {
    // On failure only the fee leaves the payer, so the balance delta is authoritative.
    const charged = preBalances[0] - postBalances[0];
    if (charged !== fee) ctx.warn?.('localnet fee formula disagrees with LiteSVM', { computed: fee, charged, signature: tx.signatures[0] });
    fee = charged;
  }
  const writes: [string, LocalAccount | null, LocalAccount | null][] = [];
  keys.forEach((k, i) => {
    if (isWritable(tx, i)) writes.push([k, postAccounts[i], preAccounts[i]]);
  });
  return {
    committed: true,
    writes,
    tx: {
      ...tx,
      signature: tx.signatures[0],
      loadedAddresses: loaded,
      memo: extractMemo(tx, keys),
      meta: {
        err,
        fee,
        preBalances,
        postBalances,
        preTokenBalances,
        postTokenBalances: collectTokenBalances(keys, read),
        innerInstructions: innerInstructionsOf(meta),
        logMessages: meta.logs(),
        computeUnitsConsumed: meta.computeUnitsConsumed(),
        returnData: returnDataOf(meta),
      },
    },
  };
}

/** Simulates without changing state. `sigVerify: false` (the RPC default) accepts unsigned transactions. */
export function simulateTransaction(
  ctx: ExecContext,
  tx: DecodedTx,
  kitTx: Transaction,
  opts: { sigVerify: boolean; skipBlockhashCheck?: boolean },
): LocalSimulation {
  const empty = (err: RpcTransactionError, accountKeys: string[] = []): LocalSimulation => ({
    err, logs: [], unitsConsumed: 0n, returnData: null, innerInstructions: [], postAccounts: new Map(),
    replacementBlockhash: null, accountKeys,
  });
  if (!opts.skipBlockhashCheck && !ctx.isRecentBlockhash(tx.recentBlockhash)) return empty('BlockhashNotFound');
  if (ctx.isDuplicate(tx.signatures[0])) return empty('AlreadyProcessed');
  const loaded = resolveLoadedAddresses(tx, (a) => readAccount(ctx.svm, a));
  if ('err' in loaded) return empty(loaded.err);
  const accountKeys = [...tx.staticKeys, ...loaded.writable, ...loaded.readonly];

  const svm = ctx.svm;
  svm.withSigverify(opts.sigVerify);
  let result;
  try {
    result = svm.simulateTransaction(kitTx);
  } catch {
    return empty('SignatureFailure', accountKeys);
  } finally {
    svm.withSigverify(true);
  }
  const postAccounts = new Map<string, LocalAccount>();
  let meta: TransactionMetadata;
  let err: RpcTransactionError | null = null;
  if (result instanceof FailedTransactionMetadata) {
    err = liteSvmErrorToRpc(result.err());
    meta = result.meta();
  } else {
    meta = result.meta();
    for (const a of result.postAccounts()) {
      postAccounts.set(a.address, { lamports: BigInt(a.lamports), data: a.data as Uint8Array, owner: a.programAddress, executable: a.executable });
    }
  }
  return {
    err,
    logs: meta.logs(),
    unitsConsumed: meta.computeUnitsConsumed(),
    returnData: returnDataOf(meta),
    innerInstructions: innerInstructionsOf(meta),
    postAccounts,
    replacementBlockhash: null,
    accountKeys,
  };
}
