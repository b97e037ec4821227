/**
 * The live block source `serve` and `ingest` follow: the Yellowstone gRPC stream when SOLGATE_GRPC_URL is set (the
 * cluster's JSON-RPC filling what it does not deliver), else the JSON-RPC poller. The gRPC client (a native module)
 * is loaded only when configured.
 */
import type { Logger } from 'pino';
import { createRpcPoller, type PollerCommitment } from './rpc-poller.js';
import type { BlockSource } from './source.js';

export interface ChainSource extends BlockSource {
  /** The newest slot the source has seen the cluster at (null before it knows). */
  tip(): number | null;
  close(): Promise<void>;
}

export interface ChainSourceOptions {
  rpcUrl: string;
  grpcUrl?: string;
  grpcToken?: string;
  commitment: PollerCommitment;
  concurrency: number;
  pollIntervalMs: number;
  fetchAccounts: boolean;
  logger: Logger;
}

export async function createChainSource(o: ChainSourceOptions): Promise<ChainSource> {
  if (o.grpcUrl) {
    const { createYellowstoneSource } = await import('./yellowstone/source.js');
    const s = createYellowstoneSource({
      url: o.grpcUrl,
      token: o.grpcToken,
      rpcUrl: o.rpcUrl,
      commitment: o.commitment,
      fetchAccounts: o.fetchAccounts,
      rpcConcurrency: o.concurrency,
      rpcPollIntervalMs: o.pollIntervalMs,
      logger: o.logger,
    });
    return { name: s.name, blocks: s.blocks, tip: () => s.stats.lastSlot, close: () => s.close() };
  }
  const p = createRpcPoller({ url: o.rpcUrl, commitment: o.commitment, concurrency: o.concurrency, pollIntervalMs: o.pollIntervalMs, fetchAccounts: o.fetchAccounts, logger: o.logger });
  return { name: p.name, blocks: p.blocks, tip: () => p.stats.tip, close: () => p.close() };
}
