/**
 * `LocalChain`: a single-node Solana chain on top of LiteSVM that produces real slots and blocks.
 *
 * Submitted transactions execute immediately (the state is "processed" at once) and are collected into the
 * open slot. Closing a slot (`produceSlot()`, or the timer every `slotMs`) turns its transactions into a block,
 * rotates LiteSVM's blockhash so every block has its own hash, pushes it into the SlotHashes sysvar (so
 * lookup-table creation sees recent slots) and advances the clock (slot, epoch, unix timestamp). Empty slots
 * are produced as empty blocks or skipped (no block, exactly like a skipped leader slot on a real cluster).
 *
 * Commitment (`commitment.ts`): a produced block is processed, confirmed `confirmedDepth` slots later and finalized
 * `finalizedDepth` slots after that (defaults 1 and 4 with the slot timer, 0 and 0 for a manual chain); `onBlock`
 * listens at any of the three levels. Nothing is ever rolled back (one leader, no forks). The account state is the
 * newest one (what processed reads see, the open slot's transactions included); `account-history.ts` keeps what
 * the accounts written since the finalized block were before, so reads at confirmed or finalized see the state at
 * the end of that level's block.
 *
 * Memory: the ledger (`block-store.ts`) retains every block (or the last `maxBlocks`), of which only the most recent
 * `hotBlocks` stay in memory; older ones are kept in ledger files on disk (`ledgerDir`). Accounts are indexed by owner
 * program and token accounts by owner, delegate and mint (`account-index.ts`), updated from every transaction's
 * writable accounts, for `getProgramAccounts` and the token-account methods. LiteSVM's native state can be serialized with
 * `snapshot()`/`saveSnapshot()` and a chain restarted from it (`LocalChain.fromSnapshot`); `recycle()`
 * rebuilds the native instance in place. See the README notes in `index.ts`.
 */
import { writeFileSync, readFileSync } from 'node:fs';
import { Clock, EpochSchedule, LiteSVM } from 'litesvm';
import { address as toAddress, createKeyPairSignerFromPrivateKeyBytes, lamports, type Instruction, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { base58ToBytes, bytesToBase58 } from '../../core/encoding.js';
import { MEMO_PROGRAM, SYSTEM_PROGRAM } from '../../core/programs.js';
import { AccountHistory } from './account-history.js';
import { AccountIndex, programScanner } from './account-index.js';
import { BlockStore } from './block-store.js';
import {
  DEFAULT_FINALITY, MANUAL_FINALITY, commitmentBound, finalityDepths, type Commitment, type FinalityDepths,
} from './commitment.js';
import { buildWireTransaction } from './wire-tx.js';
import { executeTransaction, simulateTransaction, type ExecContext } from './executor.js';
import { installLightGenesis, type LightGenesisSummary } from './light.js';
import type { LocalBlock, LocalSimulation, LocalTx } from './types.js';
import { decodeWireTransaction, replaceBlockhash } from './wire.js';
import type { ChainSnapshotMeta, LocalChainOptions, SendOutcome } from './chain-options.js';
import { BLOCKHASH_VALIDITY, LocalChainReads, SLOTS_PER_EPOCH } from './chain-reads.js';

export type { ChainSnapshotMeta, GenesisAccount, LocalChainOptions, SendOutcome } from './chain-options.js';

export { BLOCKHASH_VALIDITY } from './chain-reads.js';
const MAX_SLOT_HASHES = 512;

/** The chain: slot production, transactions and snapshots here; its reads in `LocalChainReads` (`chain-reads.ts`). */
export class LocalChain extends LocalChainReads {
  protected svm: LiteSVM;
  protected readonly store: BlockStore;
  private readonly opts: Required<Omit<LocalChainOptions, 'faucetSeed' | 'warn' | 'light' | 'hotBlocks' | 'ledgerDir' | 'accounts' | 'confirmedDepth' | 'finalizedDepth'>> & Pick<LocalChainOptions, 'warn'>;
  /** Slots until a produced block is confirmed, then finalized. */
  readonly finality: Readonly<FinalityDepths>;
  /** The newest confirmed and finalized blocks (the processed one is the store's last). */
  protected readonly tips: { confirmed: LocalBlock; finalized: LocalBlock };
  protected readonly history = new AccountHistory();
  /** What `light: true` loaded at genesis (null when not requested, or when restored from a snapshot). */
  readonly light: LightGenesisSummary | null = null;
  protected pending: LocalTx[] = [];
  private readonly pendingSigs = new Set<string>();
  /** blockhash → block height, for the last BLOCKHASH_VALIDITY+1 blocks. */
  protected readonly recentBlockhashes = new Map<string, number>();
  private slotHashes: { slot: bigint; hash: string }[] = [];
  protected openSlot: number;
  private openTime: number;
  private timer: NodeJS.Timeout | null = null;
  private readonly listeners: Record<Commitment, Set<(block: LocalBlock) => void>> = { processed: new Set(), confirmed: new Set(), finalized: new Set() };
  private readonly txListeners = new Set<(tx: LocalTx) => void>();
  private airdropNonce = 0;
  /** Program and token-account indexes (`getProgramAccounts`, `getTokenAccountsBy*`, `getTokenLargestAccounts`). */
  readonly accounts: AccountIndex;

  private constructor(
    svm: LiteSVM,
    readonly faucet: KeyPairSigner,
    private readonly faucetSeed: Uint8Array,
    readonly genesisHash: string,
    opts: LocalChainOptions,
    resume?: ChainSnapshotMeta,
  ) {
    super();
    this.svm = svm;
    this.opts = {
      slotMs: opts.slotMs ?? 400,
      emptySlots: opts.emptySlots ?? 'produce',
      maxBlocks: opts.maxBlocks ?? Infinity,
      startSlot: opts.startSlot ?? 0,
      faucetLamports: opts.faucetLamports ?? 500_000_000n * 1_000_000_000n,
      now: opts.now ?? Date.now,
      warn: opts.warn,
    };
    this.finality = finalityDepths(opts, this.opts.slotMs > 0 ? DEFAULT_FINALITY : MANUAL_FINALITY);
    this.store = new BlockStore(this.opts.maxBlocks, { hotBlocks: opts.hotBlocks, dir: opts.ledgerDir });
    if (resume) {
      this.store.add({ ...resume.lastBlock, transactions: [] });
      for (const [h, height] of resume.recentBlockhashes) this.recentBlockhashes.set(h, height);
      this.slotHashes = resume.slotHashes.map(([slot, hash]) => ({ slot: BigInt(slot), hash }));
      this.openSlot = resume.openSlot;
      this.openTime = resume.openTime;
    } else {
      if (opts.light) this.light = installLightGenesis(svm);
      for (const a of opts.accounts ?? []) {
        svm.setAccount({
          address: toAddress(a.address), lamports: lamports(a.lamports), data: a.data, programAddress: toAddress(a.owner),
          executable: a.executable ?? false, space: BigInt(a.data.length),
        });
      }
      const slot = this.opts.startSlot;
      this.openTime = Math.floor(this.opts.now() / 1000);
      svm.expireBlockhash();
      const genesis: LocalBlock = {
        slot, parentSlot: slot, blockhash: svm.latestBlockhash(), previousBlockhash: genesisHash,
        blockTime: this.openTime, blockHeight: 0, transactions: [],
      };
      this.store.add(genesis);
      this.recentBlockhashes.set(genesis.blockhash, 0);
      this.slotHashes = [{ slot: BigInt(slot), hash: genesis.blockhash }];
      svm.setSlotHashes(this.slotHashes);
      this.openSlot = slot + 1;
    }
    // The genesis block, or a snapshot's last block (a validator booted from a snapshot roots it), is final.
    this.tips = { confirmed: this.store.last, finalized: this.store.last };
    this.applyClock();
    // After the genesis accounts are in place (a restored snapshot's too): the index starts from the whole state.
    this.accounts = new AccountIndex(programScanner(() => this.svm));
  }

  /** Creates a chain with a funded faucet; starts the slot timer unless `slotMs` is 0. */
  static async create(opts: LocalChainOptions = {}): Promise<LocalChain> {
    const seed = opts.faucetSeed ?? crypto.getRandomValues(new Uint8Array(32));
    const faucet = await createKeyPairSignerFromPrivateKeyBytes(seed);
    const svm = configure(new LiteSVM());
    svm.setEpochSchedule(new EpochSchedule(SLOTS_PER_EPOCH, SLOTS_PER_EPOCH, false, 0n, 0n));
    svm.setAccount({
      address: faucet.address, lamports: lamports(opts.faucetLamports ?? 500_000_000n * 1_000_000_000n),
      data: new Uint8Array(0), programAddress: toAddress(SYSTEM_PROGRAM), executable: false, space: 0n,
    });
    const chain = new LocalChain(svm, faucet, seed, svm.latestBlockhash(), opts);
    chain.start();
    return chain;
  }

  /** Restarts a chain from `snapshot()` output. Blocks before the snapshot are gone (first available = its last block). */
  static async fromSnapshot(snap: { meta: ChainSnapshotMeta; svm: Uint8Array }, opts: LocalChainOptions = {}): Promise<LocalChain> {
    const seed = base58ToBytes(snap.meta.faucetSeed);
    const faucet = await createKeyPairSignerFromPrivateKeyBytes(seed);
    const chain = new LocalChain(configure(LiteSVM.fromBytes(snap.svm)), faucet, seed, snap.meta.genesisHash, opts, snap.meta);
    chain.start();
    return chain;
  }

  static async loadSnapshot(path: string, opts: LocalChainOptions = {}): Promise<LocalChain> {
    const meta = JSON.parse(readFileSync(`${path}.json`, 'utf8')) as ChainSnapshotMeta;
    return LocalChain.fromSnapshot({ meta, svm: new Uint8Array(readFileSync(path)) }, opts);
  }

  /**
   * Serializes the chain state (accounts, sysvars, slot/blockhash bookkeeping; not the block history).
   * An open slot holding transactions is produced first, so no executed transaction is lost.
   */
  snapshot(): { meta: ChainSnapshotMeta; svm: Uint8Array } {
    if (this.pending.length) this.produceSlot();
    const { transactions: _t, ...lastBlock } = this.store.last;
    return {
      svm: this.svm.toBytes(),
      meta: {
        version: 1, genesisHash: this.genesisHash, faucetSeed: bytesToBase58(this.faucetSeed), openSlot: this.openSlot,
        openTime: this.openTime, lastBlock, recentBlockhashes: [...this.recentBlockhashes],
        slotHashes: this.slotHashes.map((s) => [Number(s.slot), s.hash]),
      },
    };
  }

  /** Writes `path` (LiteSVM bytes) and `path.json` (chain metadata). */
  saveSnapshot(path: string): void {
    const snap = this.snapshot();
    writeFileSync(path, snap.svm);
    writeFileSync(`${path}.json`, JSON.stringify(snap.meta));
  }

  /** Rebuilds the native LiteSVM instance from its own bytes (same accounts: the indexes stay valid), releasing whatever native memory it accumulated. */
  recycle(): void {
    this.svm = configure(LiteSVM.fromBytes(this.svm.toBytes()));
  }

  start(): void {
    if (this.timer || this.opts.slotMs <= 0) return;
    this.timer = setInterval(() => {
      try {
        this.produceSlot();
      } catch (e) {
        this.opts.warn?.('localnet slot production failed', { error: String(e) });
      }
    }, this.opts.slotMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Stops slot production and deletes the ledger files: blocks older than the in-memory window are gone. */
  close(): void {
    this.stop();
    this.store.close();
  }

  /**
   * Subscribes to blocks as they reach `commitment` (default processed: as they are produced), oldest first, each
   * once; returns the unsubscribe function. Within one slot's closing, processed comes before confirmed and
   * finalized, and the tips (`slotAt`) already include what the slot confirmed and finalized.
   */
  onBlock(listener: (block: LocalBlock) => void, commitment: Commitment = 'processed'): () => void {
    const set = this.listeners[commitment];
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Subscribes to committed transactions as they execute into the open slot; returns the unsubscribe function. */
  onTransaction(listener: (tx: LocalTx) => void): () => void {
    this.txListeners.add(listener);
    return () => this.txListeners.delete(listener);
  }

  /**
   * Closes the open slot. Returns its block, or `null` when the slot was skipped (`skip: true`, or empty with
   * `emptySlots: 'skip'`). Skipping a slot that already holds transactions is an error.
   */
  produceSlot(opts: { skip?: boolean } = {}): LocalBlock | null {
    const slot = this.openSlot;
    if (opts.skip && this.pending.length) throw new Error(`slot ${slot} has transactions and cannot be skipped`);
    const skip = opts.skip || (this.pending.length === 0 && this.opts.emptySlots === 'skip');
    let block: LocalBlock | null = null;
    if (!skip) {
      const parent = this.store.last;
      this.svm.expireBlockhash();
      block = {
        slot, parentSlot: parent.slot, blockhash: this.svm.latestBlockhash(), previousBlockhash: parent.blockhash,
        blockTime: this.openTime, blockHeight: parent.blockHeight + 1, transactions: this.pending,
      };
      this.store.add(block);
      this.recentBlockhashes.set(block.blockhash, block.blockHeight);
      for (const [h, height] of this.recentBlockhashes) {
        if (height + BLOCKHASH_VALIDITY < block.blockHeight) this.recentBlockhashes.delete(h);
      }
      this.slotHashes.unshift({ slot: BigInt(slot), hash: block.blockhash });
      if (this.slotHashes.length > MAX_SLOT_HASHES) this.slotHashes.length = MAX_SLOT_HASHES;
      this.svm.setSlotHashes(this.slotHashes);
    }
    this.pending = [];
    this.pendingSigs.clear();
    this.openSlot = slot + 1;
    this.openTime = Math.max(this.openTime, Math.floor(this.opts.now() / 1000));
    this.applyClock();
    const confirmed = this.advance('confirmed', slot);
    const finalized = this.advance('finalized', slot);
    try {
      if (block) for (const l of this.listeners.processed) l(block);
      for (const b of confirmed) for (const l of this.listeners.confirmed) l(b);
      for (const b of finalized) for (const l of this.listeners.finalized) l(b);
    } finally {
      // After the listeners: a block finalized here is read at its own end, before what the tip passed with it.
      this.history.prune(this.tips.finalized.slot);
    }
    return block;
  }

  /** Moves the tip of `level` to the newest block it reaches once slot `closed` is closed; returns the blocks it passed. */
  private advance(level: 'confirmed' | 'finalized', closed: number): LocalBlock[] {
    const bound = commitmentBound(closed, this.finality, level);
    const tip = this.tips[level];
    if (bound <= tip.slot) return [];
    const blocks: LocalBlock[] = [];
    for (const s of this.store.range(tip.slot + 1, bound)) {
      const b = this.store.get(s);
      if (b) blocks.push(b);
    }
    if (blocks.length) this.tips[level] = blocks[blocks.length - 1];
    return blocks;
  }

  /**
   * Skips empty slots until every produced block is finalized (producing the open slot first if it holds
   * transactions): for a stopped chain that is about to be saved or read to its end at finalized commitment.
   */
  settle(): void {
    if (this.pending.length) this.produceSlot();
    while (this.tips.finalized.slot < this.store.last.slot) this.produceSlot({ skip: true });
  }

  /** Skips `n` empty slots (no blocks), producing the open slot first if it holds transactions. */
  skipSlots(n: number): void {
    if (this.pending.length) this.produceSlot();
    for (let i = 0; i < n; i++) this.produceSlot({ skip: true });
  }

  private applyClock(): void {
    const slot = BigInt(this.openSlot);
    const epoch = slot / SLOTS_PER_EPOCH;
    this.svm.setClock(new Clock(slot, BigInt(this.openTime), epoch, epoch + 1n, BigInt(this.openTime)));
  }

  private get ctx(): ExecContext {
    return {
      svm: this.svm,
      isRecentBlockhash: (h) => this.recentBlockhashes.has(h),
      isDuplicate: (sig) => this.pendingSigs.has(sig) || this.store.hasTransaction(sig),
      warn: this.opts.warn,
    };
  }

  /**
   * Executes a serialized transaction. Throws on undecodable bytes. With `skipPreflight: false` (the RPC
   * default) it is simulated first and nothing runs when the simulation fails.
   */
  sendTransaction(wire: Uint8Array, opts: { skipPreflight?: boolean } = {}): SendOutcome {
    const { decoded, kitTx } = decodeWireTransaction(wire);
    const signature = decoded.signatures[0];
    if (!opts.skipPreflight) {
      const simulation = simulateTransaction(this.ctx, decoded, kitTx, { sigVerify: true });
      if (simulation.err !== null) return { kind: 'preflight-failed', signature, simulation };
    }
    const out = executeTransaction(this.ctx, decoded, kitTx);
    if (!out.committed) return { kind: 'dropped', signature, err: out.err };
    for (const [address, account, before] of out.writes) {
      this.accounts.update(address, account);
      this.history.record(this.openSlot, address, before);
    }
    const tx: LocalTx = { ...out.tx, slot: this.openSlot, indexInBlock: this.pending.length, blockTime: this.openTime };
    this.pending.push(tx);
    this.pendingSigs.add(signature);
    for (const l of this.txListeners) l(tx);
    return { kind: 'committed', signature, tx };
  }

  /** Simulates a serialized transaction (RPC `simulateTransaction`). */
  simulateTransaction(wire: Uint8Array, opts: { sigVerify?: boolean; replaceRecentBlockhash?: boolean } = {}): LocalSimulation {
    let { decoded, kitTx } = decodeWireTransaction(wire);
    if (opts.replaceRecentBlockhash) {
      ({ decoded, kitTx } = decodeWireTransaction(replaceBlockhash(decoded, base58ToBytes(this.store.last.blockhash))));
    }
    const sim = simulateTransaction(this.ctx, decoded, kitTx, {
      sigVerify: opts.sigVerify ?? false, skipBlockhashCheck: opts.replaceRecentBlockhash,
    });
    if (opts.replaceRecentBlockhash) sim.replacementBlockhash = this.latestBlockhash();
    return sim;
  }

  /** Sends `lamports` from the faucet to `to` as a real, recorded System transfer; returns its signature. */
  async requestAirdrop(to: string, amount: bigint): Promise<string> {
    const ixs: Instruction[] = [getTransferSolInstruction({ source: this.faucet, destination: toAddress(to), amount })];
    // Identical airdrops within one blockhash would have identical signatures; a memo nonce keeps them unique.
    const nonce = this.airdropNonce++;
    if (nonce > 0) ixs.push({ programAddress: toAddress(MEMO_PROGRAM), data: new TextEncoder().encode(`airdrop ${nonce}`) });
    const wire = await buildWireTransaction({ feePayer: this.faucet, instructions: ixs, ...this.latestBlockhash() });
    const out = this.sendTransaction(wire, { skipPreflight: true });
    if (out.kind !== 'committed' || out.tx.meta.err !== null) {
      throw new Error(`airdrop failed: ${JSON.stringify(out.kind === 'committed' ? out.tx.meta.err : out.kind === 'dropped' ? out.err : out.simulation.err)}`);
    }
    return out.signature;
  }
}

/** Settings re-applied to every LiteSVM instance (new, restored or recycled). */
function configure(svm: LiteSVM): LiteSVM {
  // LiteSVM accepts only its single latest blockhash and keeps its own unbounded-ish history; the chain does
  // both checks itself (150-block window, signature index) so both are disabled here.
  return svm.withBlockhashCheck(false).withTransactionHistory(0n).withSigverify(true);
}
