/**
 * Test helpers: build `NormalizedTx` values from real wire bytes (decoded with @solana/kit), from recorded fixtures,
 * and from transactions executed in LiteSVM. Nothing here hand-types instruction data.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  appendTransactionMessageInstructions,
  type Address as KitAddress,
  createTransactionMessage,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  getTransactionEncoder,
  type Instruction,
  type KeyPairSigner,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { getMintDecoder, getTokenDecoder } from '@solana-program/token-2022';
import { FailedTransactionMetadata, type LiteSVM, type TransactionMetadata } from 'litesvm';
import { TOKEN_PROGRAMS } from '../../src/core/programs.js';
import { base58ToBytes, base64ToBytes, bytesToBase58 } from '../../src/core/encoding.js';
import type { InnerInstructions, NormalizedTx, TokenBalance, TxMeta } from '../../src/core/model.js';

export const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

/** A NormalizedTx from wire-format transaction bytes; `loaded` = lookup-table-loaded keys (writable, readonly). */
export function fromWire(
  bytes: Uint8Array,
  opts: { slot: number; inner?: InnerInstructions[]; meta?: TxMeta | null; loaded?: { writable: string[]; readonly: string[] } },
): NormalizedTx {
  const tx = getTransactionDecoder().decode(bytes);
  const msg = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  if (msg.version === 1) throw new Error('v1 messages are not used in these tests');
  const signatures = Object.values(tx.signatures).map((s) => (s ? bytesToBase58(s as Uint8Array) : ''));
  const lookups = 'addressTableLookups' in msg ? (msg.addressTableLookups ?? []) : [];
  const accountKeys = [...msg.staticAccounts, ...(opts.loaded?.writable ?? []), ...(opts.loaded?.readonly ?? [])];
  return {
    signature: signatures[0],
    signatures,
    slot: opts.slot,
    indexInBlock: null,
    blockTime: null,
    version: msg.version === 0 ? 0 : 'legacy',
    accountKeys,
    staticKeyCount: msg.staticAccounts.length,
    header: {
      numRequiredSignatures: msg.header.numSignerAccounts,
      numReadonlySignedAccounts: msg.header.numReadonlySignerAccounts,
      numReadonlyUnsignedAccounts: msg.header.numReadonlyNonSignerAccounts,
    },
    recentBlockhash: msg.lifetimeToken,
    addressTableLookups: lookups.map((l) => ({
      accountKey: l.lookupTableAddress,
      writableIndexes: [...l.writableIndexes],
      readonlyIndexes: [...l.readonlyIndexes],
    })),
    instructions: msg.instructions.map((ix) => ({
      programIdIndex: ix.programAddressIndex,
      accounts: [...(ix.accountIndices ?? [])],
      data: Uint8Array.from(ix.data ?? []),
      stackHeight: 1,
    })),
    innerInstructions: opts.inner ?? [],
    logMessages: null,
    meta: opts.meta ?? null,
    isVote: false,
  };
}

interface RpcCompiled {
  programIdIndex: number;
  accounts: number[];
  data: string;
  stackHeight?: number | null;
}
interface RpcTokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  programId?: string;
  uiTokenAmount: { amount: string; decimals: number };
}
/** A recorded `getTransaction` (encoding base64) response `result`. */
export interface RpcTxFixture {
  slot: number;
  transaction: [string, 'base64'];
  meta: {
    err: unknown;
    fee: number;
    preBalances: number[];
    postBalances: number[];
    innerInstructions: { index: number; instructions: RpcCompiled[] }[];
    logMessages: string[];
    preTokenBalances: RpcTokenBalance[];
    postTokenBalances: RpcTokenBalance[];
    loadedAddresses?: { writable: string[]; readonly: string[] };
    computeUnitsConsumed?: number;
  };
}

const compiled = (c: RpcCompiled) => ({
  programIdIndex: c.programIdIndex,
  accounts: c.accounts,
  data: base58ToBytes(c.data),
  stackHeight: c.stackHeight ?? null,
});
const tokenBalance = (b: RpcTokenBalance): TokenBalance => ({
  accountIndex: b.accountIndex,
  mint: b.mint,
  owner: b.owner ?? null,
  programId: b.programId ?? null,
  amount: BigInt(b.uiTokenAmount.amount),
  decimals: b.uiTokenAmount.decimals,
});

/** A NormalizedTx from a recorded getTransaction fixture (wire bytes decoded by kit, meta converted). */
export function fromRpcFixture(j: RpcTxFixture): NormalizedTx {
  const m = j.meta;
  const tx = fromWire(base64ToBytes(j.transaction[0]), {
    slot: j.slot,
    loaded: m.loadedAddresses,
    inner: m.innerInstructions.map((g) => ({ index: g.index, instructions: g.instructions.map(compiled) })),
    meta: {
      err: m.err,
      fee: BigInt(m.fee),
      preBalances: m.preBalances.map(BigInt),
      postBalances: m.postBalances.map(BigInt),
      preTokenBalances: m.preTokenBalances.map(tokenBalance),
      postTokenBalances: m.postTokenBalances.map(tokenBalance),
      computeUnitsConsumed: m.computeUnitsConsumed === undefined ? null : BigInt(m.computeUnitsConsumed),
    },
  });
  return { ...tx, logMessages: m.logMessages };
}

/** A recorded Geyser-style DAS transaction (no meta, no header). */
export interface GeyserTxFixture {
  signature: string;
  slot: number;
  version: 'legacy' | 0;
  accountKeys: string[];
  outerInstructions: RpcCompiled[];
  innerInstructions: { index: number; instructions: RpcCompiled[] }[];
}

/** A NormalizedTx from a Geyser-style DAS fixture. */
export function fromGeyserFixture(j: GeyserTxFixture): NormalizedTx {
  return {
    signature: j.signature,
    signatures: [j.signature],
    slot: j.slot,
    indexInBlock: null,
    blockTime: null,
    version: j.version,
    accountKeys: j.accountKeys,
    staticKeyCount: j.accountKeys.length,
    header: null,
    recentBlockhash: null,
    addressTableLookups: [],
    instructions: j.outerInstructions.map(compiled),
    innerInstructions: j.innerInstructions.map((g) => ({ index: g.index, instructions: g.instructions.map(compiled) })),
    logMessages: null,
    meta: null,
    isVote: false,
  };
}

/** Every JSON fixture file under `dir` (recursively), parsed. */
export function loadFixtures<T>(dir: string): { file: string; json: T }[] {
  const out: { file: string; json: T }[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...loadFixtures<T>(p));
    else out.push({ file: p, json: JSON.parse(readFileSync(p, 'utf8')) as T });
  }
  return out;
}

/**
 * Signs and executes `instructions` in LiteSVM (fee payer `payer`), then returns the NormalizedTx rebuilt from the
 * transaction's wire bytes, with LiteSVM's recorded inner instructions and lamport balances read before and after.
 * Throws when the transaction fails. Expires the blockhash afterwards so identical follow-ups get new signatures.
 */
export async function execute(
  svm: LiteSVM,
  payer: KeyPairSigner,
  instructions: Instruction[],
): Promise<{ tx: NormalizedTx; result: TransactionMetadata }> {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: svm.latestBlockhash(), lastValidBlockHeight: 0n }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const signed = await signTransactionMessageWithSigners(message);
  const wire = Uint8Array.from(getTransactionEncoder().encode(signed));
  const keys = getCompiledTransactionMessageDecoder().decode(getTransactionDecoder().decode(wire).messageBytes).staticAccounts;
  const balance = (k: KitAddress) => BigInt(svm.getBalance(k) ?? 0n);
  const pre = keys.map(balance);
  const preTokens = tokenBalances(svm, keys);
  const result = svm.sendTransaction(signed);
  if (result instanceof FailedTransactionMetadata) throw new Error(`transaction failed: ${result.toString()}`);
  const post = keys.map(balance);
  const postTokens = tokenBalances(svm, keys);
  svm.expireBlockhash();
  const inner = result
    .innerInstructions()
    .map((list, index) => ({
      index,
      instructions: list.map((ii) => ({
        programIdIndex: ii.instruction().programIdIndex(),
        accounts: [...ii.instruction().accounts()],
        data: Uint8Array.from(ii.instruction().data()),
        stackHeight: ii.stackHeight(),
      })),
    }))
    .filter((g) => g.instructions.length > 0);
  const meta: TxMeta = {
    err: null,
    fee: 0n, // not reported by LiteSVM's metadata; unused by the parsers
    preBalances: pre,
    postBalances: post,
    preTokenBalances: preTokens,
    postTokenBalances: postTokens,
    computeUnitsConsumed: result.computeUnitsConsumed(),
  };
  return { tx: { ...fromWire(wire, { slot: Number(svm.getClock().slot), inner, meta }), logMessages: result.logs() }, result };
}

/**
 * The token balances of the token accounts among `keys`, as an RPC node reports them in
 * `pre/postTokenBalances`: accounts owned by a token program whose data decodes as a token account.
 */
function tokenBalances(svm: LiteSVM, keys: readonly KitAddress[]): TokenBalance[] {
  const out: TokenBalance[] = [];
  keys.forEach((k, accountIndex) => {
    const acc = svm.getAccount(k);
    if (!acc.exists || !TOKEN_PROGRAMS.has(acc.programAddress)) return;
    // 165-byte base token account, optionally followed by the account-type byte 2 (Token-2022 extensions).
    if (acc.data.length < 165 || (acc.data.length > 165 && acc.data[165] !== 2)) return;
    const t = getTokenDecoder().decode(acc.data);
    const mint = svm.getAccount(t.mint);
    out.push({
      accountIndex,
      mint: t.mint,
      owner: t.owner,
      programId: acc.programAddress,
      amount: t.amount,
      decimals: mint.exists ? getMintDecoder().decode(mint.data).decimals : 0,
    });
  });
  return out;
}

/** JSON.stringify that accepts bigints (for readable failure messages). */
export function show(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x), 1);
}
