/**
 * The simulated chain state the block generator draws from and updates: wallets, mints, token accounts, DEX
 * pools with their address lookup tables, and validators. Lamport and token balances are tracked per account, so
 * every transaction's pre balances are the post balances of the previous one touching the same account.
 */
import { Rng, Zipf } from './rng.js';

export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const ATA_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
export const VOTE_PROGRAM = 'Vote111111111111111111111111111111111111111';
export const SYSVAR_CLOCK = 'SysvarC1ock11111111111111111111111111111111';
export const SYSVAR_SLOT_HASHES = 'SysvarS1otHashes111111111111111111111111111';
/** Made-up aggregator ("router") and AMM program ids: real-looking base58, owned by nobody. */
export const ROUTER_PROGRAM = 'RouteR1111111111111111111111111111111111111';
export const AMM_PROGRAMS = [
  'AmmA111111111111111111111111111111111111111',
  'AmmB111111111111111111111111111111111111111',
  'AmmC111111111111111111111111111111111111111',
  'AmmD111111111111111111111111111111111111111',
];
/** Made-up oracle/keeper program: calls that move no tokens (price pushes, bot bookkeeping). */
export const ORACLE_PROGRAM = 'PriceFeed1111111111111111111111111111111111';
/** Rent-exempt minimum of a 165-byte token account. */
export const TOKEN_ACCOUNT_RENT = 2_039_280n;
const PROGRAM_LAMPORTS = 1_141_440n;

export interface MintInfo {
  address: string;
  decimals: number;
}

export interface TokenAccount {
  address: string;
  mint: MintInfo;
  owner: string;
  amount: bigint;
}

export interface Pool {
  amm: string;
  state: string;
  authority: string;
  vaultA: TokenAccount;
  vaultB: TokenAccount;
  /** Address lookup table holding the pool's accounts (what v0 swaps load). */
  table: string;
  tableAddresses: string[];
}

export interface Validator {
  identity: string;
  vote: string;
}

/** Sizes of the simulated population. */
export interface PopulationOptions {
  wallets: number;
  mints: number;
  pools: number;
  validators: number;
}

const WELL_KNOWN_MINTS: MintInfo[] = [
  { address: 'So11111111111111111111111111111111111111112', decimals: 9 }, // wSOL
  { address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', decimals: 6 }, // USDC
  { address: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', decimals: 6 }, // USDT
];

/** Wallets, mints and pools with Zipf popularity, plus the mutable balance ledger. */
export class Population {
  readonly wallets: string[] = [];
  readonly mints: MintInfo[] = [];
  readonly pools: Pool[] = [];
  readonly validators: Validator[] = [];
  /** Router-wide lookup table (programs, hot mints), loaded by every v0 swap. */
  readonly sharedTable: { address: string; addresses: string[] };
  private readonly lamports = new Map<string, bigint>();
  private readonly tokenAccounts = new Map<string, TokenAccount>();
  private readonly atas = new Map<string, TokenAccount>();
  private readonly walletZipf: Zipf;
  private readonly mintZipf: Zipf;
  private readonly poolZipf: Zipf;

  constructor(readonly rng: Rng, opts: PopulationOptions) {
    for (let i = 0; i < opts.wallets; i++) this.wallets.push(rng.address());
    this.mints.push(...WELL_KNOWN_MINTS);
    while (this.mints.length < opts.mints) this.mints.push({ address: rng.address(), decimals: rng.chance(0.6) ? 6 : 9 });
    for (const m of this.mints) this.lamports.set(m.address, 1_461_600n);
    for (const p of [SYSTEM_PROGRAM, TOKEN_PROGRAM, ATA_PROGRAM, COMPUTE_BUDGET_PROGRAM, VOTE_PROGRAM, ROUTER_PROGRAM, ORACLE_PROGRAM, ...AMM_PROGRAMS])
      this.lamports.set(p, PROGRAM_LAMPORTS);
    for (const s of [SYSVAR_CLOCK, SYSVAR_SLOT_HASHES]) this.lamports.set(s, 1_169_280n);
    this.walletZipf = new Zipf(opts.wallets, 1.05, rng);
    this.mintZipf = new Zipf(opts.mints, 1.2, rng);
    // Most pools pair a long-tail token with SOL or USDC; pool popularity is skewed like the mints.
    const mintTail = new Zipf(opts.mints, 0.9, rng);
    for (let i = 0; i < opts.pools; i++) {
      const quote = this.mints[rng.chance(0.75) ? 0 : 1];
      let base = this.mints[mintTail.sample()];
      if (base.address === quote.address) base = this.mints[2 + rng.int(this.mints.length - 2)];
      const authority = rng.address();
      const amm = rng.pick(AMM_PROGRAMS);
      const vault = (mint: MintInfo): TokenAccount =>
        this.register({ address: rng.address(), mint, owner: authority, amount: rng.logUniform(1e12, 1e17) });
      const pool: Pool = { amm, state: rng.address(), authority, vaultA: vault(base), vaultB: vault(quote), table: rng.address(), tableAddresses: [] };
      pool.tableAddresses = [pool.state, authority, pool.vaultA.address, pool.vaultB.address, base.address, quote.address, amm, rng.address(), rng.address()];
      this.lamports.set(pool.state, rng.logUniform(5e6, 5e8));
      this.pools.push(pool);
    }
    this.poolZipf = new Zipf(opts.pools, 1.1, rng);
    this.sharedTable = {
      address: rng.address(),
      addresses: [TOKEN_PROGRAM, SYSTEM_PROGRAM, ATA_PROGRAM, ...AMM_PROGRAMS, ...WELL_KNOWN_MINTS.map((m) => m.address), rng.address()],
    };
    for (let i = 0; i < opts.validators; i++) {
      const v = { identity: rng.address(), vote: rng.address() };
      this.lamports.set(v.identity, rng.logUniform(1e9, 5e11));
      this.lamports.set(v.vote, rng.logUniform(1e10, 1e15));
      this.validators.push(v);
    }
  }

  /** A wallet drawn by popularity. */
  wallet(): string {
    return this.wallets[this.walletZipf.sample()];
  }

  /** A wallet drawn by popularity, different from `other`. */
  walletOtherThan(other: string): string {
    for (;;) {
      const w = this.wallet();
      if (w !== other) return w;
    }
  }

  /**
   * A fee payer drawn by popularity among wallets holding at least 0.03 SOL (enough for any fee, an ATA's rent
   * and a transfer), so balances never go negative; emptied wallets simply stop paying.
   */
  payer(): string {
    for (let i = 0; i < 100_000; i++) {
      const w = this.wallet();
      if (this.lamportsOf(w) >= 30_000_000n) return w;
    }
    throw new Error('no wallet can pay a fee any more (population too small)');
  }

  mint(): MintInfo {
    return this.mints[this.mintZipf.sample()];
  }

  pool(): Pool {
    return this.pools[this.poolZipf.sample()];
  }

  /** Current lamports of an account; first sight of a wallet gives it a plausible (log-uniform) balance. */
  lamportsOf(address: string): bigint {
    let v = this.lamports.get(address);
    if (v === undefined) {
      v = this.tokenAccounts.has(address) ? TOKEN_ACCOUNT_RENT : this.rng.logUniform(5e7, 5e12);
      this.lamports.set(address, v);
    }
    return v;
  }

  setLamports(address: string, v: bigint): void {
    if (v < 0n) throw new Error(`negative lamports for ${address}`);
    this.lamports.set(address, v);
  }

  tokenAccount(address: string): TokenAccount | undefined {
    return this.tokenAccounts.get(address);
  }

  /** The associated token account of (owner, mint), if it exists. */
  existingAta(owner: string, mint: MintInfo): TokenAccount | undefined {
    return this.atas.get(`${owner}|${mint.address}`);
  }

  /**
   * The ATA of (owner, mint), opened earlier with a random balance when first seen (it predates the benchmark).
   * Addresses are random rather than PDAs: nothing downstream derives them.
   */
  ata(owner: string, mint: MintInfo): TokenAccount {
    const cur = this.existingAta(owner, mint);
    if (cur) return cur;
    const amount = this.rng.logUniform(10 ** mint.decimals / 100, 10 ** (mint.decimals + 5));
    return this.register({ address: this.rng.address(), mint, owner, amount });
  }

  /** An ATA that does not exist yet (to be created by a transaction; call `register` when it succeeds). */
  plannedAta(owner: string, mint: MintInfo): TokenAccount {
    return { address: this.rng.address(), mint, owner, amount: 0n };
  }

  register(t: TokenAccount): TokenAccount {
    this.tokenAccounts.set(t.address, t);
    if (!this.atas.has(`${t.owner}|${t.mint.address}`)) this.atas.set(`${t.owner}|${t.mint.address}`, t);
    this.lamports.set(t.address, this.lamports.get(t.address) ?? TOKEN_ACCOUNT_RENT);
    return t;
  }
}
