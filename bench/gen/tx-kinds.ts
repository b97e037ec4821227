/**
 * Builders of the transaction kinds the mainnet-shaped blocks are made of. Each returns a {@link TxPlan}: outer
 * instructions built with the real @solana-program builders (so the bytes are real encodings), the CPIs the
 * execution made, and the lamport/token movements, which `encodeTx` turns into consistent meta.
 */
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import {
  getCreateAssociatedTokenIdempotentInstruction,
  getGetAccountDataSizeInstruction,
  getInitializeAccount3Instruction,
  getInitializeImmutableOwnerInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import { AccountRole, createNoopSigner, type AccountMeta, type Address, type Instruction } from '@solana/kit';
import type { InnerIx, TxPlan } from './encode-tx.js';
import {
  ORACLE_PROGRAM,
  ROUTER_PROGRAM,
  SYSVAR_CLOCK,
  SYSVAR_SLOT_HASHES,
  TOKEN_ACCOUNT_RENT,
  TOKEN_PROGRAM,
  VOTE_PROGRAM,
  type Population,
  type TokenAccount,
  type Validator,
} from './population.js';
import type { Rng } from './rng.js';

const A = (s: string) => s as Address;
const signer = (s: string) => createNoopSigner(A(s));
const meta = (address: string, role: AccountRole): AccountMeta => ({ address: A(address), role });
const u64le = (v: bigint) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, v, true);
  return b;
};
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) (out.set(p, o), (o += p.length));
  return out;
};

/** Compute units of the instructions themselves (children excluded), near what mainnet logs show. */
const CU = { budget: 150, system: 150, transferChecked: 6_200, ataCreate: 12_000, vote: 2_100, oracle: 18_000, router: 28_000, amm: 24_000, event: 1_600, tokenInit: 2_000 };

function emptyPlan(feePayer: string, version: 'legacy' | 0): TxPlan {
  return { version, feePayer, instructions: [], outerCu: [], inner: [], lamports: [], tokens: [], created: [], cuLimit: null, cuPrice: 0n };
}

function outer(p: TxPlan, ix: Instruction, cu: number, inner: InnerIx[] = []): void {
  p.instructions.push(ix);
  p.outerCu.push(cu);
  p.inner.push(inner);
}

/** SetComputeUnitLimit + SetComputeUnitPrice, as >90% of non-vote mainnet transactions carry. */
function computeBudget(p: TxPlan, rng: Rng, limit: number): void {
  p.cuLimit = limit;
  p.cuPrice = rng.logUniform(1_000, 2_000_000);
  outer(p, getSetComputeUnitLimitInstruction({ units: limit }), CU.budget);
  outer(p, getSetComputeUnitPriceInstruction({ microLamports: p.cuPrice }), CU.budget);
}

function transferChecked(src: TokenAccount, dst: TokenAccount, authority: string, amount: bigint): Instruction {
  return getTransferCheckedInstruction({ source: A(src.address), mint: A(src.mint.address), destination: A(dst.address), authority: signer(authority), amount, decimals: src.mint.decimals });
}

/** createAssociatedTokenIdempotent for a new account, with the four CPIs the ATA program makes. */
function createAta(p: TxPlan, payer: string, ata: TokenAccount): void {
  const ix = getCreateAssociatedTokenIdempotentInstruction({ payer: signer(payer), ata: A(ata.address), owner: A(ata.owner), mint: A(ata.mint.address) });
  outer(p, ix, CU.ataCreate, createAtaCpis(payer, ata, 2));
  p.created.push(ata);
  p.lamports.push([payer, -TOKEN_ACCOUNT_RENT], [ata.address, TOKEN_ACCOUNT_RENT]);
}

function createAtaCpis(payer: string, ata: TokenAccount, depth: number): InnerIx[] {
  return [
    { ix: getGetAccountDataSizeInstruction({ mint: A(ata.mint.address) }), stackHeight: depth, cu: 1_600 },
    {
      ix: getCreateAccountInstruction({ payer: signer(payer), newAccount: signer(ata.address), lamports: TOKEN_ACCOUNT_RENT, space: 165, programAddress: A(TOKEN_PROGRAM) }),
      stackHeight: depth,
      cu: CU.system,
    },
    { ix: getInitializeImmutableOwnerInstruction({ account: A(ata.address) }), stackHeight: depth, cu: 1_400 },
    { ix: getInitializeAccount3Instruction({ account: A(ata.address), mint: A(ata.mint.address), owner: A(ata.owner) }), stackHeight: depth, cu: CU.tokenInit },
  ];
}

/** A fraction of a balance, at least 1 (callers make sure the balance is positive). */
function part(rng: Rng, balance: bigint, lo: number, hi: number): bigint {
  const f = lo + rng.next() * (hi - lo);
  const v = BigInt(Math.floor(Number(balance) * f));
  return v < 1n ? 1n : v > balance ? balance : v;
}

/** A native SOL transfer between two wallets. */
export function solTransfer(pop: Population, rng: Rng): TxPlan {
  const from = pop.payer();
  const to = pop.walletOtherThan(from);
  const p = emptyPlan(from, rng.chance(0.15) ? 0 : 'legacy');
  if (rng.chance(0.9)) computeBudget(p, rng, rng.pick([450, 600, 1_000, 20_000]));
  const amount = part(rng, pop.lamportsOf(from) - 20_000_000n, 0.001, 0.3);
  outer(p, getTransferSolInstruction({ source: signer(from), destination: A(to), amount }), CU.system);
  p.lamports.push([from, -amount], [to, amount]);
  return p;
}

/** transferChecked between two existing ATAs (a wallet paying another in USDC, a memecoin, ...). */
export function tokenTransfer(pop: Population, rng: Rng): TxPlan {
  const from = pop.payer();
  const to = pop.walletOtherThan(from);
  const mint = pop.mint();
  const src = pop.ata(from, mint);
  const dst = pop.ata(to, mint);
  const p = emptyPlan(from, rng.chance(0.15) ? 0 : 'legacy');
  if (rng.chance(0.9)) computeBudget(p, rng, rng.pick([7_000, 30_000, 80_000]));
  if (src.amount === 0n) {
    outer(p, transferChecked(src, dst, from, 1n), CU.transferChecked);
    p.fail = { outer: p.instructions.length - 1, code: 1, innerDone: 0, message: 'Error: insufficient funds' };
    return p;
  }
  const amount = part(rng, src.amount, 0.01, 1);
  outer(p, transferChecked(src, dst, from, amount), CU.transferChecked);
  p.tokens.push([src, -amount], [dst, amount]);
  return p;
}

/** Creates the recipient's ATA (payer funds the rent) and sends it tokens: the first payment to a new holder. */
export function ataCreateAndTransfer(pop: Population, rng: Rng): TxPlan {
  const from = pop.payer();
  const mint = pop.mint();
  let to = pop.walletOtherThan(from);
  for (let i = 0; i < 8 && pop.existingAta(to, mint); i++) to = pop.walletOtherThan(from);
  const src = pop.ata(from, mint);
  const p = emptyPlan(from, 'legacy');
  computeBudget(p, rng, rng.pick([40_000, 60_000, 100_000]));
  const existing = pop.existingAta(to, mint);
  const dst = existing ?? pop.plannedAta(to, mint);
  if (!existing) createAta(p, from, dst);
  const amount = src.amount === 0n ? 0n : part(rng, src.amount, 0.01, 1);
  outer(p, transferChecked(src, dst, from, amount), CU.transferChecked);
  if (amount > 0n) p.tokens.push([src, -amount], [dst, amount]);
  return p;
}

/**
 * A routed swap: the (made-up) router program's one outer instruction CPIs into 1–2 AMM pools (depth 2), each
 * moving tokens in and out with transferChecked (depth 3), then emits an event through a self-CPI (depth 2).
 * Mostly v0 with the router's and the pools' lookup tables; the output ATA is created in the same transaction
 * when missing. With `failed`, the router fails with a slippage error after the hops ran (only the fee stays).
 */
export function swap(pop: Population, rng: Rng, failed = false): TxPlan {
  const user = pop.payer();
  const pool1 = pop.pool();
  const sell = rng.chance(0.5);
  const hops: { pool: typeof pool1; vIn: TokenAccount; vOut: TokenAccount }[] = [
    sell ? { pool: pool1, vIn: pool1.vaultA, vOut: pool1.vaultB } : { pool: pool1, vIn: pool1.vaultB, vOut: pool1.vaultA },
  ];
  if (rng.chance(0.4)) {
    // Second hop out of the intermediate mint through another pool holding it.
    const mid = hops[0].vOut.mint.address;
    for (let i = 0; i < 6; i++) {
      const q = pop.pool();
      if (q === pool1) continue;
      if (q.vaultB.mint.address === mid && q.vaultA.mint.address !== hops[0].vIn.mint.address) {
        hops.push({ pool: q, vIn: q.vaultB, vOut: q.vaultA });
        break;
      }
      if (q.vaultA.mint.address === mid && q.vaultB.mint.address !== hops[0].vIn.mint.address) {
        hops.push({ pool: q, vIn: q.vaultA, vOut: q.vaultB });
        break;
      }
    }
  }
  const useAlt = rng.chance(0.8);
  const p = emptyPlan(user, useAlt ? 0 : 'legacy');
  computeBudget(p, rng, rng.pick([200_000, 300_000, 400_000, 1_400_000]));
  const accts = hops.map((h) => pop.existingAta(user, h.vIn.mint) ?? pop.ata(user, h.vIn.mint));
  const outMint = hops[hops.length - 1].vOut.mint;
  const existingOut = pop.existingAta(user, outMint);
  const dst = existingOut ?? (rng.chance(0.5) ? pop.plannedAta(user, outMint) : pop.ata(user, outMint));
  if (!existingOut && !pop.tokenAccount(dst.address)) createAta(p, user, dst);
  accts.push(dst);
  if (accts[0].amount === 0n) failed = true;

  const routerAccounts: AccountMeta[] = [meta(TOKEN_PROGRAM, AccountRole.READONLY), meta(user, AccountRole.WRITABLE_SIGNER)];
  for (const a of accts) routerAccounts.push(meta(a.address, AccountRole.WRITABLE));
  const inner: InnerIx[] = [];
  let amount = accts[0].amount === 0n ? 1n : part(rng, accts[0].amount, 0.05, 0.6);
  const amountIn = amount;
  hops.forEach((h, i) => {
    const { pool } = h;
    routerAccounts.push(
      meta(pool.amm, AccountRole.READONLY), meta(pool.state, AccountRole.WRITABLE), meta(pool.authority, AccountRole.READONLY),
      meta(h.vIn.address, AccountRole.WRITABLE), meta(h.vOut.address, AccountRole.WRITABLE),
      meta(h.vIn.mint.address, AccountRole.READONLY), meta(h.vOut.mint.address, AccountRole.READONLY),
    );
    const out = part(rng, h.vOut.amount / 1000n + 1n, 0.01, 1);
    const src = accts[i];
    const next = accts[i + 1];
    const ammIx: Instruction = {
      programAddress: A(pool.amm),
      accounts: [pool.state, pool.authority, h.vIn.address, h.vOut.address, src.address, next.address, user, TOKEN_PROGRAM].map((a, k) =>
        meta(a, k === 1 || k === 7 ? AccountRole.READONLY : k === 6 ? AccountRole.READONLY_SIGNER : AccountRole.WRITABLE),
      ),
      data: concat(rng.bytes(8), u64le(amount), u64le(out)),
    };
    inner.push(
      { ix: ammIx, stackHeight: 2, cu: CU.amm },
      { ix: transferChecked(src, h.vIn, user, amount), stackHeight: 3, cu: CU.transferChecked },
      { ix: transferChecked(h.vOut, next, pool.authority, out), stackHeight: 3, cu: CU.transferChecked },
    );
    p.tokens.push([src, -amount], [h.vIn, amount], [h.vOut, -out], [next, out]);
    amount = out;
  });
  const eventAuthority = pop.sharedTable.addresses[pop.sharedTable.addresses.length - 1];
  routerAccounts.push(meta(eventAuthority, AccountRole.READONLY), meta(ROUTER_PROGRAM, AccountRole.READONLY));
  inner.push({
    ix: { programAddress: A(ROUTER_PROGRAM), accounts: [meta(eventAuthority, AccountRole.READONLY_SIGNER)], data: concat(rng.bytes(16), rng.bytes(32), rng.bytes(32), u64le(amountIn), u64le(amount)) },
    stackHeight: 2,
    cu: CU.event,
  });
  const routerIx: Instruction = { programAddress: A(ROUTER_PROGRAM), accounts: routerAccounts, data: concat(rng.bytes(8), u64le(amountIn), u64le((amount * 99n) / 100n), new Uint8Array([50, 0, 0])) };
  outer(p, routerIx, CU.router, inner);
  if (failed) {
    p.tokens = [];
    p.fail = { outer: p.instructions.length - 1, code: 6001, innerDone: inner.length - 1, message: 'AnchorError occurred. Error Code: SlippageToleranceExceeded. Error Number: 6001. Error Message: Slippage tolerance exceeded.' };
  }
  if (useAlt) {
    p.tables = { [A(pop.sharedTable.address)]: pop.sharedTable.addresses.map(A) };
    for (const h of hops) p.tables[A(h.pool.table)] = h.pool.tableAddresses.map(A);
  }
  return p;
}

/** A keeper bot pushing an oracle price: a program call that moves nothing but the fee. */
export function programCall(pop: Population, rng: Rng, keepers: string[], feeds: string[]): TxPlan {
  const keeper = rng.pick(keepers);
  const p = emptyPlan(keeper, rng.chance(0.3) ? 0 : 'legacy');
  if (rng.chance(0.85)) computeBudget(p, rng, rng.pick([40_000, 100_000]));
  const ix: Instruction = {
    programAddress: A(ORACLE_PROGRAM),
    accounts: [meta(keeper, AccountRole.WRITABLE_SIGNER), meta(rng.pick(feeds), AccountRole.WRITABLE), meta(SYSVAR_CLOCK, AccountRole.READONLY)],
    data: concat(rng.bytes(8), rng.bytes(48)),
  };
  outer(p, ix, CU.oracle);
  return p;
}

/** A TowerSync vote: the validator identity pays, the vote account is written; ~70% of mainnet transactions. */
export function vote(v: Validator, rng: Rng, slot: number): TxPlan {
  const p = emptyPlan(v.identity, 'legacy');
  p.compileKey = `vote:${v.identity}`;
  const lockouts: number[] = [];
  for (let i = 0; i < 31; i++) lockouts.push(1, 31 - i);
  const data = concat(
    new Uint8Array([14, 0, 0, 0]),
    u64le(BigInt(Math.max(0, slot - 32))),
    new Uint8Array([31, ...lockouts]),
    rng.bytes(32),
    new Uint8Array([1]),
    u64le(BigInt(1_700_000_000 + Math.floor(slot * 0.4))),
    rng.bytes(32),
  );
  outer(p, { programAddress: A(VOTE_PROGRAM), accounts: [meta(v.vote, AccountRole.WRITABLE), meta(SYSVAR_SLOT_HASHES, AccountRole.READONLY), meta(v.identity, AccountRole.WRITABLE_SIGNER)], data }, CU.vote);
  return p;
}
