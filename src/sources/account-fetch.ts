/**
 * Live-mode account fetching: after each block, the state of the accounts its transactions wrote for the asset
 * programs, so account-derived DAS data (Token Metadata metadata/edition/token-record accounts, MPL Core assets
 * and collections, Libreplex inscriptions, Token-2022 mints with metadata/group/member extensions) arrives from
 * a plain JSON-RPC cluster as it does from snapshots and replay files.
 *
 * Two parts: {@link selectAccountsToFetch} (pure: which keys of a block) and {@link fetchAccountsAtSlot}
 * (`getMultipleAccounts` with `minContextSlot` = the block's slot, through the poller's retrying client).
 *
 * Selection rules, per successful non-vote transaction:
 * - Only instructions (top level or inner) that invoke Token Metadata, MPL Core, Libreplex Inscriptions or
 *   Token-2022 count, and only the accounts those instructions list: a program can write only accounts passed to
 *   it, and whatever it invokes in turn receives a subset of them, so this covers every account the program (and
 *   its CPIs) could have written, and nothing else the transaction touched.
 * - Of those, the writable ones (static writable keys and lookup-table-loaded writable keys; when the source
 *   records no header, writability is unknown and every listed account counts).
 * - Never: the fee payer (always a System account without data), programs the transaction invokes, sysvars and
 *   well-known program ids, nor SPL Token accounts described by the transaction's pre/post token balances (their
 *   state already comes from the transaction itself). Token-2022 accounts are fetched even when the balances
 *   describe them: their extension state (e.g. withheld transfer fees) is not in the balances.
 * - Deduplicated per block, in first-seen order.
 *
 * A selected account that no longer exists when fetched is reported as closed: zero lamports, no data, and as
 * owner the asset program whose instruction listed it when the account existed at some point of the block (so
 * the asset parsers see `tm.closed`/`core.closed`), else the System program (what the runtime reports for a
 * missing account).
 */
import type { AccountUpdate, Address, Block, CompiledInstruction, NormalizedTx } from '../core/model.js';
import { isWritable } from '../core/model.js';
import {
  ATA_PROGRAM, COMPUTE_BUDGET_PROGRAM, MEMO_PROGRAM, SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, VOTE_PROGRAM,
} from '../core/programs.js';
import { INSCRIPTIONS_PROGRAM, MPL_CORE_PROGRAM, TOKEN_METADATA_PROGRAM } from '../parsers/asset-accounts.js';
import { normalizeAccountSnapshot } from './normalize-rpc.js';
import { createRpcClient, type FetchLike, type PollerCommitment, type RetryOptions, type RpcClient } from './rpc-client.js';

/** Programs whose own accounts carry asset state: a missing account they listed is reported owned by them. */
const ASSET_PROGRAMS: ReadonlySet<string> = new Set([TOKEN_METADATA_PROGRAM, MPL_CORE_PROGRAM, INSCRIPTIONS_PROGRAM]);
/** Every program whose invocations select accounts. */
export const ACCOUNT_FETCH_PROGRAMS: ReadonlySet<string> = new Set([...ASSET_PROGRAMS, TOKEN_2022_PROGRAM]);

/** Keys never worth fetching (the runtime also demotes these to read-only). */
const RESERVED: ReadonlySet<string> = new Set([
  SYSTEM_PROGRAM, TOKEN_PROGRAM, TOKEN_2022_PROGRAM, ATA_PROGRAM, COMPUTE_BUDGET_PROGRAM, VOTE_PROGRAM, MEMO_PROGRAM,
  ...ACCOUNT_FETCH_PROGRAMS,
  'BPFLoaderUpgradeab1e11111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'NativeLoader1111111111111111111111111111111',
  'Config1111111111111111111111111111111111111',
  'Stake11111111111111111111111111111111111111',
  'AddressLookupTab1e1111111111111111111111111',
]);
const isReserved = (k: string): boolean => RESERVED.has(k) || k.startsWith('Sysvar');

/** Largest `getMultipleAccounts` request the RPC accepts. */
export const MAX_ACCOUNTS_PER_REQUEST = 100;

/** One account to fetch after a block. */
export interface AccountFetchRequest {
  pubkey: Address;
  /**
   * Owner reported if the account is gone when fetched: the asset program whose instruction listed it (when the
   * account existed during the block), else the System program.
   */
  closedOwner: Address;
}

function* invoked(tx: NormalizedTx): Generator<CompiledInstruction> {
  yield* tx.instructions;
  for (const g of tx.innerInstructions) yield* g.instructions;
}

/**
 * The accounts to fetch after `block` (see the module comment for the rules). Pure; accepts a block or its
 * transactions.
 */
export function selectAccountsToFetch(block: Pick<Block, 'transactions'> | readonly NormalizedTx[]): AccountFetchRequest[] {
  const txs = Array.isArray(block) ? (block as readonly NormalizedTx[]) : (block as Pick<Block, 'transactions'>).transactions;
  const out = new Map<string, string>();
  for (const tx of txs) {
    if (tx.isVote || (tx.meta && tx.meta.err !== null && tx.meta.err !== undefined)) continue;
    let excluded: Set<number> | null = null;
    for (const ix of invoked(tx)) {
      const program = tx.accountKeys[ix.programIdIndex];
      if (!ACCOUNT_FETCH_PROGRAMS.has(program)) continue;
      excluded ??= excludedIndexes(tx);
      const asset = ASSET_PROGRAMS.has(program);
      for (const i of ix.accounts) {
        if (excluded.has(i) || isWritable(tx, i) === false) continue;
        const key = tx.accountKeys[i];
        if (key === undefined || isReserved(key)) continue;
        const owner = asset && existedDuring(tx, i) ? program : SYSTEM_PROGRAM;
        const prev = out.get(key);
        // A program hint beats the System default; the first program hint wins.
        if (prev === undefined || (prev === SYSTEM_PROGRAM && owner !== SYSTEM_PROGRAM)) out.set(key, owner);
      }
    }
  }
  return [...out].map(([pubkey, closedOwner]) => ({ pubkey, closedOwner }));
}

/**
 * Fee payer, invoked programs and SPL Token accounts described by token balances. Token-2022 accounts are fetched
 * even then: their extensions (withheld transfer fees, confidential balances, …) change with every transfer and
 * are not in the balances.
 */
function excludedIndexes(tx: NormalizedTx): Set<number> {
  const s = new Set<number>([0]);
  for (const ix of invoked(tx)) s.add(ix.programIdIndex);
  for (const b of [...(tx.meta?.preTokenBalances ?? []), ...(tx.meta?.postTokenBalances ?? [])]) {
    if (b.programId !== TOKEN_2022_PROGRAM) s.add(b.accountIndex);
  }
  return s;
}

/** Whether account `i` held lamports before or after `tx` (unknown without meta: assumed). */
function existedDuring(tx: NormalizedTx, i: number): boolean {
  const m = tx.meta;
  if (!m) return true;
  return (m.preBalances[i] ?? 0n) > 0n || (m.postBalances[i] ?? 0n) > 0n;
}

export interface FetchAtSlotOptions {
  commitment: 'processed' | 'confirmed' | 'finalized';
  signal?: AbortSignal;
  /** Accounts per request, at most (and by default) 100. */
  batchSize?: number;
}

/**
 * Fetches `requests` with `getMultipleAccounts` (base64, `minContextSlot` = `slot`, batches of ≤100 in
 * parallel) through `client`, whose retry policy applies: rate limits, 5xx and network errors are retried
 * with backoff, and "minimum context slot not reached" (-32016) is waited for. Each update's slot is its
 * response's `context.slot` (the state is as of that slot, at least `slot`), `writeVersion` 0. Accounts that
 * do not exist are returned closed: 0 lamports, no data, owner `closedOwner`. Output order = request order.
 */
export async function fetchAccountsAtSlot(
  client: RpcClient,
  slot: number,
  requests: readonly AccountFetchRequest[],
  opts: FetchAtSlotOptions,
): Promise<AccountUpdate[]> {
  const size = Math.max(1, Math.min(MAX_ACCOUNTS_PER_REQUEST, opts.batchSize ?? MAX_ACCOUNTS_PER_REQUEST));
  const chunks: AccountFetchRequest[][] = [];
  for (let i = 0; i < requests.length; i += size) chunks.push(requests.slice(i, i + size));
  const results = await Promise.all(chunks.map((c) => fetchChunk(client, slot, c, opts)));
  return results.flat();
}

async function fetchChunk(
  client: RpcClient,
  minSlot: number,
  chunk: AccountFetchRequest[],
  opts: FetchAtSlotOptions,
): Promise<AccountUpdate[]> {
  const res = await client.call<{ context?: { slot?: unknown }; value?: unknown }>(
    'getMultipleAccounts',
    [chunk.map((r) => r.pubkey), { encoding: 'base64', commitment: opts.commitment, minContextSlot: minSlot }],
    opts.signal,
  );
  const ctxSlot = Number(res?.context?.slot);
  if (!Number.isSafeInteger(ctxSlot) || ctxSlot < minSlot) {
    throw new Error(`getMultipleAccounts: context slot ${JSON.stringify(res?.context?.slot)} is not at least ${minSlot}`);
  }
  const values = res?.value;
  if (!Array.isArray(values) || values.length !== chunk.length) {
    throw new Error(`getMultipleAccounts: expected ${chunk.length} values, got ${JSON.stringify(values)?.slice(0, 200)}`);
  }
  return values.map((v, j): AccountUpdate => {
    const { pubkey, closedOwner } = chunk[j];
    if (v === null || v === undefined) {
      return { pubkey, owner: closedOwner, lamports: 0n, data: new Uint8Array(0), executable: false, slot: ctxSlot, writeVersion: 0n };
    }
    const u = normalizeAccountSnapshot({ ...(v as Record<string, unknown>), pubkey, slot: ctxSlot });
    return { ...u, writeVersion: 0n };
  });
}

export interface FetchAccountsOptions extends RetryOptions {
  commitment?: PollerCommitment | 'processed';
  fetchImpl?: FetchLike;
  /** Reuse an existing client (its retry settings apply); otherwise one is created and closed. */
  client?: RpcClient;
  signal?: AbortSignal;
}

/**
 * Fetches the current state of `pubkeys` with `getMultipleAccounts` (chunks of 100, base64), e.g. to refresh
 * accounts touched by a block. `slot` is the response's `context.slot`. An account that does not exist is
 * returned as what the runtime considers it: 0 lamports, System-owned, no data — so a closed account is
 * seen as closed rather than silently left stale.
 */
export async function fetchAccounts(
  url: string,
  pubkeys: string[],
  opts: FetchAccountsOptions = {},
): Promise<AccountUpdate[]> {
  const client = opts.client ?? createRpcClient({ ...opts, url });
  try {
    const out: AccountUpdate[] = [];
    for (let i = 0; i < pubkeys.length; i += 100) {
      const chunk = pubkeys.slice(i, i + 100);
      const res = await client.call<{ context?: { slot?: unknown }; value?: unknown }>(
        'getMultipleAccounts',
        [chunk, { encoding: 'base64', commitment: opts.commitment ?? 'confirmed' }],
        opts.signal,
      );
      const slot = res?.context?.slot;
      if (!Array.isArray(res?.value) || res.value.length !== chunk.length) {
        const got = JSON.stringify(res)?.slice(0, 200);
        throw new Error(`getMultipleAccounts: expected ${chunk.length} values, got ${got}`);
      }
      res.value.forEach((v, j) => {
        const acc =
          v === null
            ? { lamports: 0, owner: SYSTEM_PROGRAM, data: ['', 'base64'], executable: false }
            : (v as Record<string, unknown>);
        out.push(normalizeAccountSnapshot({ ...acc, pubkey: chunk[j], slot }));
      });
    }
    return out;
  } finally {
    if (!opts.client) await client.close();
  }
}

/**
 * Reads, at the block's slot or later, the accounts its transactions wrote for the asset programs and sets them as
 * `block.accounts` (left unset when there are none); returns how many were read. What every live source does after
 * a block, so the poller and the gRPC stream write the same rows.
 */
export async function attachBlockAccounts(client: RpcClient, block: Block, opts: FetchAtSlotOptions): Promise<number> {
  const wanted = selectAccountsToFetch(block);
  if (!wanted.length) return 0;
  block.accounts = await fetchAccountsAtSlot(client, block.slot, wanted, opts);
  return block.accounts.length;
}
