/**
 * Mainnet-shaped blocks as JSON-RPC `getBlock` results (encoding "base64", transactionDetails "full",
 * maxSupportedTransactionVersion 0), deterministic for a seed.
 *
 * Mix, roughly after public mainnet statistics (Solana Compass / Dune / Helius reports, 2024–2025):
 *  - ~70% of all transactions are votes (≈ 900 of ≈ 1,300 per block); the indexer skips them but still has to
 *    JSON.parse and decode them, so they are in the block.
 *  - Of the non-vote transactions ({@link NON_VOTE_MIX}): DEX activity dominates (aggregator-routed swaps with
 *    deep CPI trees, mostly v0 with address lookup tables, 40% of the 1–2 hop kind plus 6% that fail on slippage);
 *    plain SPL `transferChecked` 15%; SOL transfers 12%; first payments that create the recipient's ATA 8%;
 *    oracle/keeper program calls that move no tokens 17% (mainnet has a large share of such bot traffic);
 *    2% fail for other reasons (insufficient funds). Failed ≈ 8% overall — public figures were far higher in
 *    2024 (bot spam); they are cheap to ingest (no events), so a low share is the conservative choice.
 *  - ~90% of non-vote transactions carry SetComputeUnitLimit + SetComputeUnitPrice (priority fees).
 * Wallets, mints and pools are drawn with Zipf popularity, so a few rows are hot (as USDC, SOL and big bots are).
 */
import { Population, type PopulationOptions } from './population.js';
import { Rng } from './rng.js';
import { encodeTx, type TxPlan } from './encode-tx.js';
import { ataCreateAndTransfer, programCall, solTransfer, swap, tokenTransfer, vote } from './tx-kinds.js';

/** Shares of the non-vote transaction kinds (sum 1). */
export const NON_VOTE_MIX = {
  swap: 0.4,
  failedSwap: 0.06,
  tokenTransfer: 0.15,
  failedTransfer: 0.02,
  solTransfer: 0.12,
  ataCreate: 0.08,
  programCall: 0.17,
} as const;

export type TxKind = keyof typeof NON_VOTE_MIX | 'vote';

export interface MainnetBlockOptions extends Partial<PopulationOptions> {
  seed?: number;
  /** Transactions per block, votes included (mainnet ≈ 1,300). */
  txsPerBlock?: number;
  /** Share of vote transactions (mainnet ≈ 0.7). */
  voteShare?: number;
  /** Slot of the first block. */
  startSlot?: number;
}

/** One generated block: its slot, the getBlock result object, and what it contains. */
export interface GeneratedBlock {
  slot: number;
  result: Record<string, unknown>;
  txs: number;
  nonVoteTxs: number;
  kinds: Partial<Record<TxKind, number>>;
}

/** Generates consecutive mainnet-shaped blocks; each call to `next()` yields the next slot. */
export class MainnetBlockGenerator {
  private readonly rng: Rng;
  private readonly pop: Population;
  private readonly keepers: string[] = [];
  private readonly feeds: string[] = [];
  private readonly recentBlockhashes: string[] = [];
  private slot: number;
  private height: number;
  private blockTime: number;
  private previousBlockhash: string;
  private voteCursor = 0;
  readonly txsPerBlock: number;
  readonly voteShare: number;

  constructor(opts: MainnetBlockOptions = {}) {
    this.rng = new Rng(opts.seed ?? 42);
    this.pop = new Population(this.rng, {
      wallets: opts.wallets ?? 100_000,
      mints: opts.mints ?? 2_000,
      pools: opts.pools ?? 400,
      validators: opts.validators ?? 1_400,
    });
    for (let i = 0; i < 40; i++) {
      const k = this.rng.address();
      this.pop.setLamports(k, 1_000_000_000_000n);
      this.keepers.push(k);
    }
    for (let i = 0; i < 300; i++) this.feeds.push(this.rng.address());
    this.txsPerBlock = opts.txsPerBlock ?? 1_300;
    this.voteShare = opts.voteShare ?? 0.7;
    this.slot = opts.startSlot ?? 300_000_000;
    this.height = this.slot - 20_000_000;
    this.blockTime = 1_730_000_000;
    this.previousBlockhash = this.rng.address();
    for (let i = 0; i < 150; i++) this.recentBlockhashes.push(this.rng.address());
  }

  private pickKind(): keyof typeof NON_VOTE_MIX {
    let u = this.rng.next();
    for (const [k, share] of Object.entries(NON_VOTE_MIX) as [keyof typeof NON_VOTE_MIX, number][]) {
      if ((u -= share) < 0) return k;
    }
    return 'swap';
  }

  private plan(kind: TxKind): TxPlan {
    const { pop, rng } = this;
    switch (kind) {
      case 'vote': {
        const v = pop.validators[this.voteCursor++ % pop.validators.length];
        return vote(v, rng, this.slot);
      }
      case 'swap':
        return swap(pop, rng);
      case 'failedSwap':
        return swap(pop, rng, true);
      case 'tokenTransfer':
        return tokenTransfer(pop, rng);
      case 'failedTransfer': {
        const p = tokenTransfer(pop, rng);
        if (!p.fail) {
          p.tokens = [];
          p.fail = { outer: p.instructions.length - 1, code: 1, innerDone: 0, message: 'Error: insufficient funds' };
        }
        return p;
      }
      case 'solTransfer':
        return solTransfer(pop, rng);
      case 'ataCreate':
        return ataCreateAndTransfer(pop, rng);
      case 'programCall':
        return programCall(pop, rng, this.keepers, this.feeds);
    }
  }

  /** The next block. */
  next(): GeneratedBlock {
    const slot = this.slot;
    const n = this.txsPerBlock;
    const votes = Math.round(n * this.voteShare);
    const kinds: TxKind[] = [];
    for (let i = 0; i < votes; i++) kinds.push('vote');
    for (let i = votes; i < n; i++) kinds.push(this.pickKind());
    this.rng.shuffle(kinds);
    const counts: Partial<Record<TxKind, number>> = {};
    const transactions: unknown[] = [];
    let fees = 0;
    let nonVoteTxs = 0;
    for (const kind of kinds) {
      counts[kind] = (counts[kind] ?? 0) + 1;
      // Transactions reference a blockhash from the last ~150 slots.
      const bh = this.recentBlockhashes[this.rng.int(this.recentBlockhashes.length)];
      const { entry, nonVote } = encodeTx(this.plan(kind), this.pop, this.rng, bh);
      fees += (entry as { meta: { fee: number } }).meta.fee;
      if (nonVote) nonVoteTxs++;
      transactions.push(entry);
    }
    const blockhash = this.rng.address();
    const leader = this.pop.validators[this.rng.int(this.pop.validators.length)].identity;
    const reward = Math.floor(fees / 2);
    const leaderPost = Number(this.pop.lamportsOf(leader)) + reward;
    this.pop.setLamports(leader, BigInt(leaderPost));
    const result = {
      blockHeight: this.height,
      blockTime: Math.floor(this.blockTime),
      blockhash,
      parentSlot: slot - 1,
      previousBlockhash: this.previousBlockhash,
      rewards: [{ commission: null, lamports: reward, postBalance: leaderPost, pubkey: leader, rewardType: 'Fee' }],
      transactions,
    };
    this.previousBlockhash = blockhash;
    this.recentBlockhashes.shift();
    this.recentBlockhashes.push(blockhash);
    this.slot++;
    this.height++;
    this.blockTime += 0.4;
    return { slot, result, txs: n, nonVoteTxs, kinds: counts };
  }
}
