/**
 * getTransactionWithCompressionInfo(V2) (helius-labs/photon src/api/method/get_transaction_with_compression_info.rs):
 * the transaction and the compressed accounts it opened (created) and closed (spent), with their token data.
 *
 * Photon fetches the transaction from the cluster RPC and re-parses it. Here the opened and closed accounts come
 * from the stored account ↔ transaction links (each list in (tree, leaf index) order), and the transaction itself
 * from `deps.zk.getTransaction` when one is configured — then, as in Photon, opened accounts report the
 * transaction's own slot as `slotCreated`. Without a fetcher the `transaction` member is described from what the
 * index stores — `{slot, blockTime, meta: {err, status}}`; the wire transaction (message, signatures), the rest of
 * the meta (fee, balances, logs, inner instructions) and the version are not stored and are absent.
 * A signature the index does not know (and the cluster, when asked, does not either) is Record Not Found.
 */
import { SolgateError } from '../../core/errors.js';
import type { ApiDeps } from '../deps.js';
import { getTokenAccountsByHash } from '../../store/zk/accounts.js';
import { getTransactionAccounts, getTransactions } from '../../store/zk/transactions.js';
import type { ZkAccount, ZkTokenData } from '../../store/zk/types.js';
import { zkDeps } from './deps.js';
import { recordNotFound } from './errors.js';
import { ZERO_HASH } from './json.js';
import { accountV1, accountV2, tokenData, type Json } from './serialize.js';
import type { EncodedTransaction } from './transaction-fetcher.js';

function storedError(error: string | null): unknown {
  if (error === null) return null;
  try {
    return JSON.parse(error);
  } catch {
    return error;
  }
}

async function loadTransaction(deps: ApiDeps, signature: string): Promise<{ tx: EncodedTransaction | null; opened: ZkAccount[]; closed: ZkAccount[]; tokens: Map<string, ZkTokenData> }> {
  const fetcher = zkDeps(deps).getTransaction;
  const [storedTxs, links, fetched] = await Promise.all([
    getTransactions(deps.db, [signature]),
    getTransactionAccounts(deps.db, signature),
    fetcher
      ? fetcher(signature).catch((e: unknown) => {
          throw new SolgateError('INTERNAL', `Unexpected Error: Failed to fetch transaction ${signature}`, { cause: e });
        })
      : Promise.resolve(null),
  ]);
  const row = storedTxs.get(signature) ?? null;
  if (!fetched && !row) throw recordNotFound(`Transaction ${signature} not found`);
  const tx: EncodedTransaction | null =
    fetched ?? (row ? { slot: row.slot, blockTime: row.blockTime, meta: { err: storedError(row.error), status: row.error ? { Err: storedError(row.error) } : { Ok: null } } } : null);
  const hashes = [...links.opened, ...links.closed].map((a) => a.hash);
  const tokenRows = await getTokenAccountsByHash(deps.db, hashes, 'any');
  const tokens = new Map([...tokenRows].map(([h, t]) => [h, t.token]));
  return { tx, opened: links.opened, closed: links.closed, tokens };
}

function fetchedSlot(tx: EncodedTransaction | null, fetched: boolean): number | undefined {
  return fetched && tx && typeof tx.slot === 'number' ? tx.slot : undefined;
}

/** The V1 result `{transaction, compressionInfo: {closedAccounts, openedAccounts}}` (no context). */
export async function transactionWithCompressionInfo(deps: ApiDeps, signature: string): Promise<Json> {
  const t = await loadTransaction(deps, signature);
  const slot = fetchedSlot(t.tx, !!zkDeps(deps).getTransaction);
  const item = (a: ZkAccount, opened: boolean) => {
    const token = t.tokens.get(a.hash);
    return { account: accountV1(a, opened && slot !== undefined ? slot : a.slotCreated), optionalTokenData: token ? tokenData(token) : null };
  };
  return {
    transaction: t.tx,
    compressionInfo: { closedAccounts: t.closed.map((a) => item(a, false)), openedAccounts: t.opened.map((a) => item(a, true)) },
  };
}

/** The V2 result: accounts as AccountV2; closed ones with their nullifier and tx hash (zero hash when none). */
export async function transactionWithCompressionInfoV2(deps: ApiDeps, signature: string): Promise<Json> {
  const t = await loadTransaction(deps, signature);
  const slot = fetchedSlot(t.tx, !!zkDeps(deps).getTransaction);
  const token = (a: ZkAccount) => {
    const td = t.tokens.get(a.hash);
    return td ? tokenData(td) : null;
  };
  return {
    transaction: t.tx,
    compressionInfo: {
      closedAccounts: t.closed.map((a) => ({
        account: { account: accountV2(a), nullifier: a.nullifier ?? ZERO_HASH, txHash: a.txHash ?? ZERO_HASH },
        optionalTokenData: token(a),
      })),
      openedAccounts: t.opened.map((a) => ({ account: accountV2(a, slot ?? a.slotCreated), optionalTokenData: token(a) })),
    },
  };
}
