/**
 * The cluster read behind getTransactionWithCompressionInfo(V2): Photon answers with the transaction as the RPC's
 * `getTransaction` returns it (`{"encoding":"base64","commitment":"confirmed","maxSupportedTransactionVersion":0}`),
 * which the index does not store. The CLI passes a fetcher as `deps.zk.getTransaction`; this module provides one
 * over undici for a JSON-RPC URL.
 */
import { fetch as undiciFetch } from 'undici';

/** An `EncodedConfirmedTransactionWithStatusMeta` as JSON (`{slot, transaction, meta, version?, blockTime}`). */
export type EncodedTransaction = Record<string, unknown>;

/** Fetches a transaction by signature; null when the cluster does not know it. */
export type TransactionFetcher = (signature: string) => Promise<EncodedTransaction | null>;

/** Options of {@link createRpcTransactionFetcher}. */
export interface RpcTransactionFetcherOptions {
  commitment?: 'confirmed' | 'finalized';
  timeoutMs?: number;
}

/** A {@link TransactionFetcher} over the cluster JSON-RPC at `url`. */
export function createRpcTransactionFetcher(url: string, opts: RpcTransactionFetcherOptions = {}): TransactionFetcher {
  return async (signature) => {
    const res = await undiciFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'getTransaction',
        params: [signature, { encoding: 'base64', commitment: opts.commitment ?? 'confirmed', maxSupportedTransactionVersion: 0 }],
      }),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
    });
    if (!res.ok) throw new Error(`getTransaction: HTTP ${res.status}`);
    const body = (await res.json()) as { result?: EncodedTransaction | null; error?: { code: number; message: string } };
    if (body.error) throw new Error(`getTransaction: RPC error ${body.error.code}: ${body.error.message}`);
    return body.result ?? null;
  };
}
