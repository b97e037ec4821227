/**
 * The demo chain of `serve --demo` and `localnet --demo`: the built-in localnet (LiteSVM) plus a demo workload.
 * With `light` (SOLGATE_LOCALNET_LIGHT, on by default) the chain carries the Light Protocol programs and genesis
 * trees and the workload adds ZK Compression activity; if the Light genesis cannot be loaded the chain starts
 * without it (with a warning).
 *
 * Persistence across restarts (`serve --demo`, `snapshotDir` set): at graceful shutdown the workload and slot
 * production stop, `settle()` waits (bounded) until the index has every slot the chain produced, and `save()`
 * writes the chain (`chain.saveSnapshot`) and the workload's state (wallet keys, mints, NFT mints, spendable
 * compressed accounts) into `snapshotDir`, atomically (a temporary directory renamed into place). At the next start
 * a saved chain whose last slot equals the index checkpoint is restored and the workload continues on it with the
 * same wallets, mints and NFTs, so balances, mints, NFT holders and the Light trees (leaf indexes, sequence numbers,
 * hence proofs) go on where the index left them. Otherwise (no snapshot: a crash, `kill -9`, a first run on an indexed database; or
 * one of another database) a fresh chain starts after the checkpoint, so the indexed slots never rewind, with a
 * warning: chain state starts over and the earlier run's ZK Compression trees are no longer on chain.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { createLocalnet, startDemoWorkload, type Localnet, type DemoWorkload, type LocalnetOptions, type ChainSnapshotMeta } from '../sources/localnet/index.js';
import { DEMO_TOKENS, type DemoOptions, type DemoState, type LightDemoInfo } from '../sources/localnet/demo.js';
import { onMintTokenMetadata } from '../sources/localnet/demo-assets.js';
import type { TokenInfo } from '../pricing/token-registry.js';
import { NATIVE_MINT } from '../core/programs.js';

/**
 * SOL's price on the demo chain: it has no Pyth accounts and no DEX pools to derive one from, so the demo's registry
 * overrides it with this placeholder (docs/prices.md), as it prices the demo tokens.
 */
export const DEMO_SOL_PRICE_USD = 150;

export { DEMO_SNAPSHOT_DIR } from './demo-paths.js';

/**
 * The demo's DAS assets: Token-2022 mints carrying their metadata on chain (MetadataPointer + TokenMetadata), so
 * `getAsset`/`getAssetsByOwner`/`searchAssets` answer them with `content.metadata` name and symbol.
 */
export interface DemoAssetIds {
  /** An NFT to show with `getAsset` (member #1 of the collection; it moves between the wallets). */
  nft: string;
  /** The collection (token group) NFT; it stays with `owner`. */
  collection: string;
  /** Every member NFT (#1, #2, … one per wallet at setup). */
  nfts: string[];
  /** The Token-2022 fungible (named on chain: DEMO22). */
  fungible: string;
  /**
   * A wallet that always holds demo assets (the collection NFT and DEMO22): an owner for `getAssetsByOwner` /
   * `searchAssets` with `displayOptions.showFungible: true` (Token-2022 NFTs without Token Metadata are
   * FungibleToken-interface assets owned through token accounts in the DAS reference solgate follows).
   */
  owner: string;
}

export interface DemoChain {
  url: string;
  faucet: string;
  wallets: string[];
  mints: { splToken: string; token2022: string };
  /** The Token-2022 NFTs and fungible DAS indexes, or null without the workload. */
  assets: DemoAssetIds | null;
  /**
   * Token registry entries (`serve`'s overlay) of the demo mints: the classic SPL Token mint and the
   * compressed-token mint (no metadata of their own) as `DEMO_TOKENS` names them; the Token-2022 mints (DEMO22, the
   * collection, the NFTs) with the name and symbol their TokenMetadata extension has on chain now, so every API
   * that names tokens from the registry (balances, transfers) agrees with DAS `content.metadata`.
   */
  tokenOverlay(): Array<[string, TokenInfo]>;
  /** The compressed activity (its compressed-token mint, counters), or null without Light. */
  light: LightDemoInfo | null;
  /** Whether the chain has the Light programs and genesis trees. */
  lightGenesis: boolean;
  /** The first slot to index: after the restored snapshot's last slot, or the `startSlot` asked for. */
  startSlot: number;
  /** Whether the chain (and the workload, when one was saved) continues a saved snapshot. */
  restored: boolean;
  localnet: Localnet;
  /** The demo workload (its counters and current NFT holders), or null without it. */
  workload: DemoWorkload | null;
  /**
   * Stops the workload and slot production (the open slot is closed), then waits until `indexedSlot()` reaches the
   * chain's last slot or `timeoutMs` (default 15 s) passes. Returns whether the index caught up (a warning otherwise).
   */
  settle(o: { indexedSlot: () => Promise<number | null>; timeoutMs?: number }): Promise<boolean>;
  /**
   * After `settle()` returned true (and ideally after ingestion and `stop()`): saves the chain and the workload into
   * `snapshotDir`. Returns the saved slot, or null when there is nothing to save (no `snapshotDir`, not settled, the
   * chain moved since) — with a warning in the last two cases.
   */
  save(): number | null;
  /** Stops the workload, slot production and the JSON-RPC server (idempotent). */
  stop(): Promise<void>;
}

/** What `save()` writes last into the snapshot directory: its presence marks the directory complete. */
interface SnapshotManifest {
  version: 1;
  /** Last slot of the saved chain (= the index checkpoint when it was saved). */
  slot: number;
  /** Whether the saved chain carries the Light genesis. */
  light: boolean;
  savedAt: string;
}

interface FoundSnapshot {
  dir: string;
  manifest: SnapshotManifest;
}

export async function startDemoChain(o: {
  port: number; slotMs: number; startSlot: number; logger: Logger; workload?: boolean; light?: boolean;
  /** Slots from confirmed to finalized (`LocalChainOptions.finalizedDepth`; default 4). */
  finalizedDepth?: number;
  /** Directory `save()` writes to and a restart restores from; unset = no persistence. */
  snapshotDir?: string;
  /** The index checkpoint: a saved chain is restored only when its last slot equals it. */
  checkpoint?: number | null;
  /** Workload pacing (tests). */
  demo?: Pick<DemoOptions, 'intervalMs' | 'wallets'>;
}): Promise<DemoChain> {
  const { logger } = o;
  const start = async (opts: LocalnetOptions): Promise<Localnet> => {
    try {
      return await createLocalnet(opts);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
      logger.warn({ port: opts.port }, 'localnet: port in use; using a free port');
      return createLocalnet({ ...opts, port: 0 });
    }
  };
  // The chain's ledger files (blocks older than its in-memory window) beside the snapshot, in the data directory.
  const base = {
    port: o.port, slotMs: o.slotMs, startSlot: o.startSlot, finalizedDepth: o.finalizedDepth, ledgerDir: o.snapshotDir ? `${o.snapshotDir}.ledger` : undefined,
  };
  let net: Localnet | null = null;
  let lightGenesis = false;
  let restoredFrom: FoundSnapshot | null = null;
  let startSlot = o.startSlot;

  if (o.snapshotDir) {
    const found = findSnapshots(o.snapshotDir, logger);
    const match = o.checkpoint == null ? undefined : found.find((s) => s.manifest.slot === o.checkpoint);
    if (match) {
      try {
        net = await start({ ...base, snapshot: join(match.dir, 'chain') });
        restoredFrom = match;
        lightGenesis = match.manifest.light;
        startSlot = match.manifest.slot + 1;
        logger.info({ slot: match.manifest.slot, savedAt: match.manifest.savedAt, dir: match.dir }, 'localnet: chain restored from its snapshot; continuing after the indexed slot');
        if (o.light && !lightGenesis) logger.warn('localnet: the restored chain has no Light genesis (saved with SOLGATE_LOCALNET_LIGHT=false); ZK Compression stays off on it');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') throw e;
        logger.warn({ err: e, dir: match.dir }, 'localnet: the chain snapshot could not be restored');
      }
    }
    if (!net && o.checkpoint != null) {
      logger.warn(
        { checkpoint: o.checkpoint, snapshotSlots: found.map((s) => s.manifest.slot), snapshotDir: o.snapshotDir, startSlot },
        `localnet: no chain snapshot matches the index checkpoint (slot ${o.checkpoint}; the last run did not shut down gracefully, or the snapshot belongs to another database): ` +
        `starting a FRESH chain at slot ${startSlot}. Chain state restarted: balances, mints and the ZK Compression trees start over, ` +
        'the index keeps the earlier run\'s rows, and Merkle proofs of the earlier run\'s compressed accounts are no longer available. ' +
        'Delete the data directory for a consistent demo.',
      );
    } else if (!net && found.length) {
      logger.warn({ snapshotSlots: found.map((s) => s.manifest.slot), snapshotDir: o.snapshotDir }, 'localnet: ignoring the chain snapshot: the index is empty; starting a fresh chain');
    }
  }

  if (!net && o.light) {
    try {
      net = await start({ ...base, light: true });
      lightGenesis = true;
      const l = net.chain.light;
      if (l) logger.debug({ version: l.version, programs: l.programs.length, accounts: l.accounts.length, readMs: Math.round(l.readMs), installMs: Math.round(l.installMs) }, 'localnet: Light genesis loaded');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') throw e;
      logger.warn({ err: e }, 'localnet: could not load the Light Protocol genesis; starting without ZK Compression');
      net = await start(base);
    }
  } else if (!net) {
    net = await start(base);
  }
  const localnet: Localnet = net;

  const demoOptions = (resume?: DemoState): DemoOptions => ({
    ...o.demo,
    light: o.light === true && lightGenesis,
    resume,
    log: (message, context, level) => logger[level ?? 'debug'](context ?? {}, `demo: ${message}`),
  });
  let demo: DemoWorkload | null = null;
  try {
    if (o.workload !== false) {
      const saved = restoredFrom ? readDemoState(restoredFrom.dir, logger) : null;
      if (saved) {
        try {
          demo = await startDemoWorkload(localnet.chain, demoOptions(saved));
        } catch (e) {
          logger.warn({ err: e }, 'demo: the saved workload could not be resumed; setting up new demo wallets and mints on the restored chain');
        }
      }
      demo ??= await startDemoWorkload(localnet.chain, demoOptions());
    }
  } catch (e) {
    await localnet.close();
    throw e;
  }

  let stopped = false;
  let settledSlot: number | null = null;
  const quiesce = async (): Promise<number> => {
    await demo?.stop();
    localnet.chain.stop();
    // The open slot becomes a block, and empty slots are skipped until every block is finalized: an ingester
    // following the chain at confirmed or finalized commitment can then reach its last block.
    localnet.chain.settle();
    return localnet.chain.slot;
  };

  return {
    url: localnet.url,
    faucet: localnet.chain.faucet.address,
    wallets: demo ? [...demo.wallets] : [],
    mints: demo ? { ...demo.mints } : { splToken: '', token2022: '' },
    assets: demo
      ? {
        nft: demo.assets.nfts[0], collection: demo.assets.collection, nfts: [...demo.assets.nfts],
        fungible: demo.mints.token2022, owner: demo.wallets[0],
      }
      : null,
    tokenOverlay: () => (demo
      ? demoTokenOverlay({
        splToken: demo.mints.splToken, compressed: demo.light?.mint ?? null,
        token2022: [demo.mints.token2022, demo.assets.collection, ...demo.assets.nfts],
      }, (mint) => localnet.chain.getAccount(mint)?.data ?? null)
      : []),
    light: demo?.light ?? null,
    lightGenesis,
    startSlot,
    restored: restoredFrom !== null,
    localnet,
    workload: demo,
    async settle({ indexedSlot, timeoutMs = 15_000 }) {
      const last = await quiesce();
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const indexed = await indexedSlot();
        if (indexed !== null && indexed >= last) {
          settledSlot = last;
          return true;
        }
        if (Date.now() >= deadline) {
          logger.warn({ lastSlot: last, indexedSlot: indexed, timeoutMs }, 'localnet: the index did not reach the chain\'s last slot in time; the chain is not saved (the next start begins a fresh chain)');
          return false;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    save() {
      if (!o.snapshotDir) return null;
      const chain = localnet.chain;
      if (settledSlot === null || chain.slot !== settledSlot || chain.pendingTransactions.length) {
        logger.warn({ settledSlot, lastSlot: chain.slot, pending: chain.pendingTransactions.length }, 'localnet: the chain is not settled with the index; not saved');
        return null;
      }
      const started = Date.now();
      writeSnapshotAtomically(o.snapshotDir, (dir) => {
        chain.saveSnapshot(join(dir, 'chain'));
        if (demo) writeFileSync(join(dir, 'demo.json'), JSON.stringify(demo.state()));
        const manifest: SnapshotManifest = { version: 1, slot: chain.slot, light: lightGenesis, savedAt: new Date().toISOString() };
        writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
      });
      logger.info({ slot: chain.slot, dir: o.snapshotDir, ms: Date.now() - started }, 'localnet: chain saved; the next start continues it');
      return chain.slot;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await demo?.stop();
      await localnet.close();
    },
  };
}

/**
 * The registry entries of the demo mints: `DEMO_TOKENS` for those without metadata of their own (SPL Token,
 * compressed), the on-chain TokenMetadata for the Token-2022 ones (read through `accountData`; a mint without it
 * gets no entry). `DEMO_TOKENS` is the one place the demo's names are defined: the workload writes the Token-2022
 * ones on chain from it. Plus SOL's placeholder price (`DEMO_SOL_PRICE_USD`).
 */
export function demoTokenOverlay(
  mints: { splToken: string; compressed: string | null; token2022: string[] },
  accountData: (mint: string) => Uint8Array | null,
): Array<[string, TokenInfo]> {
  const out: Array<[string, TokenInfo]> = [[NATIVE_MINT, { priceUsd: DEMO_SOL_PRICE_USD }], [mints.splToken, { ...DEMO_TOKENS.splToken }]];
  if (mints.compressed) out.push([mints.compressed, { ...DEMO_TOKENS.compressed }]);
  for (const mint of mints.token2022) {
    const data = accountData(mint);
    const md = data ? onMintTokenMetadata(data) : null;
    if (md) out.push([mint, { symbol: md.symbol, name: md.name }]);
  }
  return out;
}

/**
 * Complete snapshots under `dir` (or `dir.tmp`, complete when a save was interrupted between its two renames),
 * each checked against the chain metadata it holds.
 */
function findSnapshots(dir: string, logger: Logger): FoundSnapshot[] {
  const found: FoundSnapshot[] = [];
  for (const d of [dir, `${dir}.tmp`]) {
    const file = join(d, 'manifest.json');
    if (!existsSync(file)) continue;
    try {
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as SnapshotManifest;
      const meta = JSON.parse(readFileSync(join(d, 'chain.json'), 'utf8')) as ChainSnapshotMeta;
      if (manifest.version !== 1 || meta.lastBlock.slot !== manifest.slot || !existsSync(join(d, 'chain'))) throw new Error('inconsistent snapshot files');
      found.push({ dir: d, manifest });
    } catch (e) {
      logger.warn({ err: e, dir: d }, 'localnet: unreadable chain snapshot ignored');
    }
  }
  return found;
}

function readDemoState(dir: string, logger: Logger): DemoState | null {
  const file = join(dir, 'demo.json');
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as DemoState;
  } catch (e) {
    logger.warn({ err: e, file }, 'demo: unreadable saved workload ignored');
    return null;
  }
}

/**
 * Fills a fresh `dir.tmp` (`write` writes the manifest last), flushes it, then swaps it in for `dir` by renames: a
 * reader sees the old complete snapshot, the new one, or (interrupted between the renames) the new one in `dir.tmp`.
 */
function writeSnapshotAtomically(dir: string, write: (tmp: string) => void): void {
  const tmp = `${dir}.tmp`;
  const old = `${dir}.old`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  write(tmp);
  for (const f of ['chain', 'chain.json', 'demo.json', 'manifest.json']) {
    const path = join(tmp, f);
    if (!existsSync(path)) continue;
    const fd = openSync(path, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
  rmSync(old, { recursive: true, force: true });
  if (existsSync(dir)) renameSync(dir, old);
  renameSync(tmp, dir);
  rmSync(old, { recursive: true, force: true });
}
