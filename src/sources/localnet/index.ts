/**
 * The built-in `localnet`: a LiteSVM-backed chain that executes real System, SPL Token, Token-2022,
 * Associated Token Account and Address Lookup Table instructions, produces slots/blocks, and serves them over
 * the standard Solana JSON-RPC — so solgate can index a "cluster" with no external validator.
 *
 * ```ts
 * const net = await createLocalnet({ port: 8899 });
 * const demo = await startDemoWorkload(net.chain);   // optional traffic
 * // … index net.url like any RPC endpoint …
 * await demo.stop(); await net.close();
 * ```
 *
 * Notes for long runs:
 * - The ledger retains every block of the run by default (`maxBlocks` sets a limit: oldest dropped,
 *   `getFirstAvailableBlock` moves up accordingly). Only the last `hotBlocks` (256) stay in memory; older ones are
 *   written to ledger files (`ledgerDir`, a temporary directory by default) and read back by `getBlock`,
 *   `getTransaction` and `getSignaturesForAddress`; what memory keeps per transaction is its index entries
 *   (~150 bytes).
 * - Accounts are indexed by owner program and token accounts by owner, delegate and mint (`account-index.ts`) for
 *   `getProgramAccounts` and the token methods (`rpc-token-methods.ts`).
 * - LiteSVM keeps its state in a native (Rust) heap. `chain.saveSnapshot(path)` writes it plus the slot and
 *   blockhash bookkeeping, and `createLocalnet({ snapshot: path })` restarts from it (the block history
 *   restarts at the snapshot's last block, like a validator booted from a snapshot). `chain.recycle()`
 *   rebuilds the native instance in place from its own bytes without losing anything.
 * - The faucet is a regular system account funded at genesis; `requestAirdrop` sends real, recorded
 *   transfers from it.
 * - `light: true` loads the Light Protocol (ZK Compression) programs and genesis trees shipped with
 *   @lightprotocol/zk-compression-cli, as `light test-validator` does (`light.ts`; kit builders for what runs
 *   without a prover in `light-instructions.ts`). Off by default: it adds 0.1–0.25 s to start-up, ~14 MB of
 *   accounts (and to every snapshot) and ~65 MB of resident memory.
 * - `accounts: [...]` installs accounts at genesis as they are (`solana-test-validator --account`), e.g. recorded
 *   Token Metadata or MPL Core accounts, whose programs the chain cannot run.
 * - PubSub: agave's WebSocket subscriptions (`pubsub.ts`) on `net.wsUrl` (the HTTP port) and `net.pubsubUrl`
 *   (port + 1, where web3.js `Connection` looks by default), so `sendAndConfirmTransaction`, `onAccountChange` and
 *   kit's `createSolanaRpcSubscriptions` work against the localnet, each subscription notified when a block reaches
 *   its commitment.
 * - Commitment (`commitment.ts`): a produced block is processed, confirmed `confirmedDepth` slots later (default 1)
 *   and finalized `finalizedDepth` slots after that (default 4; a real cluster's is about 32); a manual chain
 *   (`slotMs: 0`) finalizes every block at once unless depths are given. No forks: nothing is ever rolled back. The
 *   HTTP methods and subscriptions honour `commitment` (default finalized) and `minContextSlot`.
 */
import { LocalChain, type LocalChainOptions } from './chain.js';
import { startRpcServer } from './rpc-server.js';
import type { LocalPubSub, LocalPubSubOptions } from './pubsub.js';

export { LocalChain, BLOCKHASH_VALIDITY } from './chain.js';
export { CLUSTER_FINALIZED_DEPTH, DEFAULT_FINALITY, type Commitment, type FinalityDepths } from './commitment.js';
export type { LocalChainOptions, SendOutcome, ChainSnapshotMeta, GenesisAccount } from './chain.js';
export { startRpcServer, handleRpcBody } from './rpc-server.js';
export type { LocalRpcServer, RpcServerOptions } from './rpc-server.js';
export { LocalPubSub } from './pubsub.js';
export type { LocalPubSubOptions } from './pubsub.js';
export { startDemoWorkload } from './demo.js';
export type { DemoWorkload, DemoOptions } from './demo.js';
export { LocalnetBlockSource, toNormalizedBlock } from './block-source.js';
export * from './light.js';
export * from './light-instructions.js';
export type * from './types.js';

export interface LocalnetOptions extends LocalChainOptions {
  /** HTTP port; 0 (default) picks a free one. */
  port?: number;
  /** Bind address; default 127.0.0.1. */
  host?: string;
  /** Restart from a snapshot written by `chain.saveSnapshot(path)`. */
  snapshot?: string;
  /** Also serve the WebSocket PubSub on port + 1 (default true; see `rpc-server.ts`). */
  pubsubPortPlusOne?: boolean;
  /** Limits of the WebSocket PubSub service. */
  pubsub?: LocalPubSubOptions;
}

export interface Localnet {
  /** JSON-RPC endpoint, e.g. `http://127.0.0.1:8899`. */
  readonly url: string;
  readonly port: number;
  /** WebSocket PubSub endpoint on the HTTP port, e.g. `ws://127.0.0.1:8899` (give it to kit's `createSolanaRpcSubscriptions`). */
  readonly wsUrl: string;
  /** The PubSub endpoint on port + 1, e.g. `ws://127.0.0.1:8900`: what web3.js `Connection(url)` derives; null when off. */
  readonly pubsubUrl: string | null;
  readonly pubsub: LocalPubSub;
  readonly chain: LocalChain;
  /** Stops slot production and the HTTP server. */
  close(): Promise<void>;
}

/** Starts a chain (slot timer included unless `slotMs: 0`) and its JSON-RPC server with the WebSocket PubSub. */
export async function createLocalnet(opts: LocalnetOptions = {}): Promise<Localnet> {
  const chain = opts.snapshot ? await LocalChain.loadSnapshot(opts.snapshot, opts) : await LocalChain.create(opts);
  let server;
  try {
    server = await startRpcServer(chain, {
      port: opts.port ?? 0, host: opts.host, pubsubPortPlusOne: opts.pubsubPortPlusOne, pubsub: { warn: opts.warn, ...opts.pubsub },
    });
  } catch (e) {
    chain.close();
    throw e;
  }
  return {
    url: server.url,
    port: server.port,
    wsUrl: server.wsUrl,
    pubsubUrl: server.pubsubUrl,
    pubsub: server.pubsub,
    chain,
    close: async () => {
      chain.stop();
      await server.close();
      chain.close();
    },
  };
}
