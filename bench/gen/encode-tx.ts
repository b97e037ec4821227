/**
 * Turns a transaction plan (instructions built with @solana/kit and the @solana-program builders, plus what the
 * execution did) into one entry of a JSON-RPC `getBlock` result in base64 encoding: real wire bytes, and a meta
 * whose balances are read from and written back to the simulated population, so they are consistent.
 */
import {
  appendTransactionMessageInstructions,
  compileTransactionMessage,
  compressTransactionMessageUsingAddressLookupTables,
  createTransactionMessage,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type AddressesByLookupTableAddress,
  type Blockhash,
  type Instruction,
} from '@solana/kit';
import { Population, TOKEN_PROGRAM, type TokenAccount } from './population.js';
import type { Rng } from './rng.js';
import { programLogs, type LogNode } from './logs.js';
import { checkAgainstKit, encodeMessage, encodeTransaction, toBase58, type Compiled } from './wire.js';


/** How many transactions are cross-checked against kit's own encoders (the rest trust the fast path). */
const KIT_CHECKS = 300;
let checked = 0;

/** An instruction invoked by CPI, with its invocation depth (2 = called by an outer instruction). */
export interface InnerIx {
  ix: Instruction;
  stackHeight: number;
  /** Compute units the instruction itself uses (children excluded). */
  cu: number;
}

/** Everything the generator decided about one transaction; `encodeTx` derives the RPC entry from it. */
export interface TxPlan {
  version: 'legacy' | 0;
  feePayer: string;
  instructions: Instruction[];
  /** Compute units of each outer instruction itself. */
  outerCu: number[];
  /** CPIs of each outer instruction, in invocation order. */
  inner: InnerIx[][];
  /** Lamport changes on success (fee excluded). */
  lamports: [string, bigint][];
  /** Token amount changes on success. */
  tokens: [TokenAccount, bigint][];
  /** Token accounts this transaction creates (absent before it; registered on success). */
  created: TokenAccount[];
  /** Requested compute unit limit (default 200k per instruction) and price in micro-lamports. */
  cuLimit: number | null;
  cuPrice: bigint;
  /** Lookup tables to compress a v0 message with. */
  tables?: AddressesByLookupTableAddress;
  /**
   * Plans with the same key compile to the same message except for instruction data and blockhash (votes of one
   * validator), so the compiled template is reused instead of compiling again.
   */
  compileKey?: string;
  /** Failure: outer instruction index, custom error code, and how many of its CPIs ran before it failed. */
  fail?: { outer: number; code: number; innerDone: number; message: string };
}

/** The JSON of a `uiTokenAmount`, exactly as the RPC formats it. */
function uiTokenAmount(amount: bigint, decimals: number) {
  const s = amount.toString();
  let ui: string;
  if (decimals === 0) ui = s;
  else {
    const padded = s.padStart(decimals + 1, '0');
    ui = `${padded.slice(0, -decimals)}.${padded.slice(-decimals)}`.replace(/\.?0+$/, '');
  }
  return { amount: s, decimals, uiAmount: amount === 0n ? null : Number(ui), uiAmountString: ui };
}

function tokenBalance(index: number, t: TokenAccount) {
  return {
    accountIndex: index,
    mint: t.mint.address,
    owner: t.owner,
    programId: TOKEN_PROGRAM,
    uiTokenAmount: uiTokenAmount(t.amount, t.mint.decimals),
  };
}

/** Base fee per signature, as on mainnet. */
export const LAMPORTS_PER_SIGNATURE = 5000n;

/**
 * Encodes `plan` as a getBlock transaction entry (`{meta, transaction: [base64, "base64"], version}`) and applies
 * its effects to `pop`. Signatures are random bytes; nothing verifies them.
 */
export function encodeTx(plan: TxPlan, pop: Population, rng: Rng, blockhash: string): { entry: unknown; nonVote: boolean } {
  const compiled = compile(plan, blockhash);
  const lookups = compiled.version === 0 ? (compiled.addressTableLookups ?? []) : [];
  const loadedW: string[] = [];
  const loadedR: string[] = [];
  for (const l of lookups) {
    const table = plan.tables?.[l.lookupTableAddress] ?? [];
    for (const i of l.writableIndexes) loadedW.push(table[i]);
    for (const i of l.readonlyIndexes) loadedR.push(table[i]);
  }
  const keys: string[] = [...compiled.staticAccounts, ...loadedW, ...loadedR];
  const index = new Map<string, number>();
  keys.forEach((k, i) => index.set(k, i));

  const numSigners = compiled.header.numSignerAccounts;
  const signatures: Uint8Array[] = [];
  for (let i = 0; i < numSigners; i++) signatures.push(rng.bytes(64));
  if (checked < KIT_CHECKS) {
    checked++;
    checkAgainstKit(compiled, signatures);
  }
  const wire = encodeTransaction(signatures, encodeMessage(compiled));

  const fee =
    LAMPORTS_PER_SIGNATURE * BigInt(numSigners) +
    (plan.cuPrice * BigInt(plan.cuLimit ?? 200_000 * plan.instructions.length) + 999_999n) / 1_000_000n;

  // Pre state.
  for (const t of plan.created) pop.setLamports(t.address, pop.tokenAccount(t.address) ? pop.lamportsOf(t.address) : 0n);
  const createdSet = new Set(plan.created.map((t) => t.address));
  const preBalances = keys.map((k) => pop.lamportsOf(k));
  const preTokenBalances = tokenBalancesOf(keys, pop, createdSet);

  // Execution.
  const failed = plan.fail !== undefined;
  pop.setLamports(plan.feePayer, pop.lamportsOf(plan.feePayer) - fee);
  if (!failed) {
    for (const t of plan.created) pop.register(t);
    for (const [a, d] of plan.lamports) pop.setLamports(a, pop.lamportsOf(a) + d);
    for (const [t, d] of plan.tokens) {
      if (t.amount + d < 0n) throw new Error(`negative token balance in plan for ${t.address}`);
      t.amount += d;
    }
  }
  const postBalances = keys.map((k) => pop.lamportsOf(k));
  const postTokenBalances = tokenBalancesOf(keys, pop, failed ? createdSet : new Set());

  // Inner instructions (truncated at the failure) and logs.
  const innerInstructions: unknown[] = [];
  const nodes: LogNode[] = [];
  const lastOuter = plan.fail ? plan.fail.outer : plan.instructions.length - 1;
  for (let i = 0; i <= lastOuter; i++) {
    const ix = plan.instructions[i];
    nodes.push({ program: ix.programAddress, data: ix.data as Uint8Array | undefined, depth: 1, cu: plan.outerCu[i] ?? 0 });
    const ran = plan.fail?.outer === i ? plan.inner[i].slice(0, plan.fail.innerDone) : plan.inner[i];
    for (const c of ran) nodes.push({ program: c.ix.programAddress, data: c.ix.data as Uint8Array | undefined, depth: c.stackHeight, cu: c.cu });
    if (ran.length === 0) continue;
    innerInstructions.push({
      index: i,
      instructions: ran.map((c) => ({
        programIdIndex: indexOf(index, c.ix.programAddress),
        accounts: (c.ix.accounts ?? []).map((a) => indexOf(index, a.address)),
        data: toBase58((c.ix.data ?? new Uint8Array()) as Uint8Array),
        stackHeight: c.stackHeight,
      })),
    });
  }
  const limit = plan.cuLimit ?? 200_000 * plan.instructions.length;
  const { logs, consumed } = programLogs(nodes, limit, plan.fail);
  const err = plan.fail ? { InstructionError: [plan.fail.outer, { Custom: plan.fail.code }] } : null;

  const meta = {
    computeUnitsConsumed: consumed,
    err,
    fee: Number(fee),
    innerInstructions,
    loadedAddresses: { readonly: loadedR, writable: loadedW },
    logMessages: logs,
    postBalances: postBalances.map(Number),
    postTokenBalances,
    preBalances: preBalances.map(Number),
    preTokenBalances,
    rewards: [],
    status: err ? { Err: err } : { Ok: null },
  };
  return {
    entry: { meta, transaction: [Buffer.from(wire).toString('base64'), 'base64'], version: plan.version },
    nonVote: !plan.instructions.some((ix) => ix.programAddress === 'Vote111111111111111111111111111111111111111'),
  };
}

const templates = new Map<string, Compiled>();

/** Compiles the plan's message with kit (or reuses the template of its `compileKey`). */
function compile(plan: TxPlan, blockhash: string): Compiled {
  const cached = plan.compileKey ? templates.get(plan.compileKey) : undefined;
  if (cached) {
    return {
      ...cached,
      lifetimeToken: blockhash,
      instructions: cached.instructions.map((ix, i) => ({ ...ix, data: plan.instructions[i].data })),
    } as Compiled;
  }
  let msg = setTransactionMessageLifetimeUsingBlockhash(
    { blockhash: blockhash as Blockhash, lastValidBlockHeight: 0n },
    appendTransactionMessageInstructions(
      plan.instructions,
      setTransactionMessageFeePayer(plan.feePayer as Address, createTransactionMessage({ version: plan.version })),
    ),
  );
  if (plan.version === 0 && plan.tables) msg = compressTransactionMessageUsingAddressLookupTables(msg as never, plan.tables) as typeof msg;
  const compiled = compileTransactionMessage(msg) as unknown as Compiled;
  if (plan.compileKey) templates.set(plan.compileKey, compiled);
  return compiled;
}

function indexOf(index: Map<string, number>, a: string): number {
  const i = index.get(a);
  if (i === undefined) throw new Error(`inner instruction uses ${a}, which is not among the transaction's keys`);
  return i;
}

/** Token balances of every token account among `keys` (as the RPC lists them), skipping `absent` ones. */
function tokenBalancesOf(keys: string[], pop: Population, absent: Set<string>) {
  const out: ReturnType<typeof tokenBalance>[] = [];
  keys.forEach((k, i) => {
    const t = pop.tokenAccount(k);
    if (t && !absent.has(k)) out.push(tokenBalance(i, t));
  });
  return out;
}
