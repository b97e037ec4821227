/**
 * The account-scan and token methods of the localnet's JSON-RPC, answered from the chain's account indexes
 * (`account-index.ts`) with agave's shapes, defaults and errors (rpc.rs, parsed_token_accounts.rs):
 * getProgramAccounts, getTokenAccountsByOwner, getTokenAccountsByDelegate, getTokenAccountBalance, getTokenSupply,
 * getTokenLargestAccounts. States are read at the request's commitment; the indexes follow the newest state, so a
 * scan at confirmed or finalized also weighs the accounts written since that level's block (`candidatesAt`).
 */
import { base58ToBytes, bytesToBase58 } from '../../core/encoding.js';
import { NATIVE_MINT, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, TOKEN_PROGRAMS } from '../../core/programs.js';
import type { LocalChain } from './chain.js';
import type { Commitment } from './commitment.js';
import {
  accountOpts, filterAllows, keyedAccounts, loadSorted, parseFilters, type AccountFilter, type AccountRead,
} from './rpc-accounts.js';
import {
  addressParam, boolOpt, configParam, context, invalidParam, invalidParams, jsonType, levelOpt, requireArgs,
} from './rpc-params.js';
import { TOKEN_ACCOUNT_LEN, isTokenAccountData, uiAmount, unpackMint, unpackTokenAccount } from './token-parse.js';
import type { LocalAccount } from './types.js';

type Handler = (params: unknown[], chain: LocalChain) => unknown;

/** agave's NUM_LARGEST_ACCOUNTS. */
const NUM_LARGEST_ACCOUNTS = 20;
const SPL_TOKEN_ACCOUNT_MINT_OFFSET = 0;
const SPL_TOKEN_ACCOUNT_OWNER_OFFSET = 32;

const keyAt = (f: AccountFilter, offset: number): string | undefined =>
  'memcmp' in f && f.memcmp.offset === offset && f.memcmp.bytes.length === 32 ? bytesToBase58(f.memcmp.bytes) : undefined;
/** The 32-byte key at `o` of account data, base58. */
const keyOf = (d: Uint8Array, o: number) => bytesToBase58(d.subarray(o, o + 32));

/**
 * `get_spl_token_owner_filter` / `get_spl_token_mint_filter`: for a token program, filters that pin the token
 * accounts of one owner (or mint) let the answer come from the token index instead of the program's accounts.
 */
function pinnedTokenKey(program: string, filters: AccountFilter[], offset: number): string | undefined {
  if (!TOKEN_PROGRAMS.has(program)) return undefined;
  const tokenAccountsOnly = filters.some((f) =>
    ('dataSize' in f && f.dataSize === BigInt(TOKEN_ACCOUNT_LEN))
    || 'tokenAccountState' in f
    || (program === TOKEN_2022_PROGRAM && 'memcmp' in f && f.memcmp.offset === TOKEN_ACCOUNT_LEN && f.memcmp.bytes.length === 1 && f.memcmp.bytes[0] === 2));
  if (!tokenAccountsOnly) return undefined;
  let key: string | undefined;
  for (const f of filters) key = keyAt(f, offset) ?? key;
  return key;
}

/**
 * The indexes' candidates plus the accounts written after the newest block at `level`: one given another owner,
 * mint or delegate since (or closed) is in the indexes under its new keys only. Every candidate is then read at
 * `level` and filtered, so the answer is that block's.
 */
function candidatesAt(chain: LocalChain, level: Commitment, indexed: string[]): string[] {
  const since = chain.accountsWrittenAfter(level);
  return since.length ? [...new Set([...indexed, ...since])] : indexed;
}

const getProgramAccounts: Handler = (p, chain) => {
  requireArgs(p, 1);
  const program = addressParam(p[0]);
  const cfg = configParam(p[1]);
  const filters = parseFilters(cfg.filters);
  const withContext = boolOpt(cfg.withContext, false, 'withContext');
  const sort = boolOpt(cfg.sortResults, true, 'sortResults');
  const o = accountOpts(cfg);
  const ctx = context(chain, cfg);
  const level = levelOpt(cfg);
  const read = chain.accountReader(level);
  const all = [...filters];
  let candidates: string[];
  const owner = pinnedTokenKey(program, filters, SPL_TOKEN_ACCOUNT_OWNER_OFFSET);
  const mint = owner === undefined ? pinnedTokenKey(program, filters, SPL_TOKEN_ACCOUNT_MINT_OFFSET) : undefined;
  if (owner !== undefined) {
    // The by-owner index path adds these two filters (rpc.rs get_filtered_spl_token_accounts_by_owner).
    candidates = chain.accounts.tokenAccountsByOwner(owner);
    all.push({ tokenAccountState: true }, { memcmp: { offset: SPL_TOKEN_ACCOUNT_OWNER_OFFSET, bytes: base58ToBytes(owner) } });
  } else if (mint !== undefined) {
    candidates = chain.accounts.tokenAccountsByMint(mint);
    all.push({ tokenAccountState: true }, { memcmp: { offset: SPL_TOKEN_ACCOUNT_MINT_OFFSET, bytes: base58ToBytes(mint) } });
  } else {
    candidates = chain.accounts.programAccounts(program);
  }
  const keyed = loadSorted(read, candidatesAt(chain, level, candidates), (acc) => acc.owner === program && all.every((f) => filterAllows(f, acc.data)), sort);
  const value = keyedAccounts(read, program, keyed, o);
  return withContext ? { context: ctx, value } : value;
};

/** `RpcTokenAccountsFilter`: `{mint}` or `{programId}` (a map with a single key). */
function tokenFilterParam(v: unknown): { mint: string } | { programId: string } {
  if (typeof v === 'string') {
    if (v === 'mint' || v === 'programId') throw invalidParams('invalid type: unit variant, expected newtype variant.');
    throw invalidParams(`unknown variant \`${v}\`, expected \`mint\` or \`programId\`.`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw invalidParams(`invalid type: ${jsonType(v)}, expected string or map.`);
  const entries = Object.entries(v);
  if (entries.length !== 1) throw invalidParams('invalid value: map, expected map with a single key.');
  const [name, value] = entries[0];
  if (name !== 'mint' && name !== 'programId') throw invalidParams(`unknown variant \`${name}\`, expected \`mint\` or \`programId\`.`);
  if (typeof value !== 'string') throw invalidParams(`invalid type: ${jsonType(value)}, expected a string.`);
  return name === 'mint' ? { mint: addressParam(value) } : { programId: addressParam(value) };
}

/** `get_mint_owner_and_additional_data`: the mint's owner program and decimals (the native mint needs no account). */
function mintOwnerAndDecimals(read: AccountRead, mint: string): { owner: string; decimals: number } {
  if (mint === NATIVE_MINT) return { owner: TOKEN_PROGRAM, decimals: 9 };
  const acc = read(mint);
  if (!acc) throw invalidParam('Invalid param: could not find mint');
  const m = unpackMint(acc.data);
  if (!m) throw invalidParam('Invalid param: Token mint could not be unpacked');
  return { owner: acc.owner, decimals: m.decimals };
}

/** `get_token_program_id_and_mint`. */
function tokenProgramAndMint(read: AccountRead, f: { mint: string } | { programId: string }): { program: string; mint?: string } {
  if ('mint' in f) {
    const { owner } = mintOwnerAndDecimals(read, f.mint);
    if (!TOKEN_PROGRAMS.has(owner)) throw invalidParam('Invalid param: not a Token mint');
    return { program: owner, mint: f.mint };
  }
  if (!TOKEN_PROGRAMS.has(f.programId)) throw invalidParam('Invalid param: unrecognized Token program id');
  return { program: f.programId };
}

/** getTokenAccountsByOwner / getTokenAccountsByDelegate. */
function tokenAccountsBy(by: 'owner' | 'delegate'): Handler {
  return (p, chain) => {
    requireArgs(p, 2);
    const who = addressParam(p[0]);
    const filter = tokenFilterParam(p[1]);
    const cfg = configParam(p[2]);
    const o = accountOpts(cfg);
    const ctx = context(chain, cfg);
    const level = levelOpt(cfg);
    const read = chain.accountReader(level);
    const { program, mint } = tokenProgramAndMint(read, filter);
    const indexed = by === 'owner' ? chain.accounts.tokenAccountsByOwner(who) : chain.accounts.tokenAccountsByDelegate(who);
    const candidates = candidatesAt(chain, level, indexed);
    const keep = (acc: LocalAccount) => {
      if (acc.owner !== program || !isTokenAccountData(acc.data)) return false;
      // By delegate: the COption tag at 72 is Some and the key at 76 is the delegate (rpc.rs's two memcmp filters).
      const matches = by === 'owner' ? keyOf(acc.data, 32) === who
        : acc.data[72] === 1 && acc.data[73] === 0 && acc.data[74] === 0 && acc.data[75] === 0 && keyOf(acc.data, 76) === who;
      return matches && (mint === undefined || keyOf(acc.data, 0) === mint);
    };
    return { context: ctx, value: keyedAccounts(read, program, loadSorted(read, candidates, keep), o) };
  };
}

/** The `[address, {commitment}]` params of the balance and supply methods: the address, the context, the level and a reader at it. */
function accountAndCommitment(p: unknown[], chain: LocalChain): { address: string; ctx: ReturnType<typeof context>; level: Commitment; read: AccountRead } {
  requireArgs(p, 1);
  const address = addressParam(p[0]);
  const cfg = configParam(p[1]);
  const level = levelOpt(cfg);
  return { address, ctx: context(chain, cfg), level, read: chain.accountReader(level) };
}

const getTokenAccountBalance: Handler = (p, chain) => {
  const { address, ctx, read } = accountAndCommitment(p, chain);
  const acc = read(address);
  if (!acc) throw invalidParam('Invalid param: could not find account');
  if (!TOKEN_PROGRAMS.has(acc.owner)) throw invalidParam('Invalid param: not a Token account');
  const t = unpackTokenAccount(acc.data);
  if (!t) throw invalidParam('Invalid param: not a Token account');
  const { decimals } = mintOwnerAndDecimals(read, t.mint);
  return { context: ctx, value: uiAmount(t.amount, decimals) };
};

const getTokenSupply: Handler = (p, chain) => {
  const { address, ctx, read } = accountAndCommitment(p, chain);
  const acc = read(address);
  if (!acc) throw invalidParam('Invalid param: could not find account');
  if (!TOKEN_PROGRAMS.has(acc.owner)) throw invalidParam('Invalid param: not a Token mint');
  const m = unpackMint(acc.data);
  if (!m) throw invalidParam('Invalid param: mint could not be unpacked');
  return { context: ctx, value: uiAmount(m.supply, m.decimals) };
};

const getTokenLargestAccounts: Handler = (p, chain) => {
  const { address: mint, ctx, level, read } = accountAndCommitment(p, chain);
  const { owner, decimals } = mintOwnerAndDecimals(read, mint);
  if (!TOKEN_PROGRAMS.has(owner)) throw invalidParam('Invalid param: not a Token mint');
  const rows = loadSorted(read, candidatesAt(chain, level, chain.accounts.tokenAccountsByMint(mint)), (acc) =>
    acc.owner === owner && isTokenAccountData(acc.data) && keyOf(acc.data, 0) === mint, false)
    .map(([address, acc]) => ({ address, key: Buffer.from(base58ToBytes(address)), amount: unpackTokenAccount(acc.data)?.amount ?? 0n }));
  // Largest first; equal amounts by descending public key, as agave's BinaryHeap of (amount, pubkey) yields them.
  rows.sort((a, b) => (a.amount === b.amount ? Buffer.compare(b.key, a.key) : a.amount > b.amount ? -1 : 1));
  return {
    context: ctx,
    value: rows.slice(0, NUM_LARGEST_ACCOUNTS).map((r) => ({ address: r.address, ...uiAmount(r.amount, decimals) })),
  };
};

export const TOKEN_METHODS: Record<string, Handler> = {
  getProgramAccounts,
  getTokenAccountsByOwner: tokenAccountsBy('owner'),
  getTokenAccountsByDelegate: tokenAccountsBy('delegate'),
  getTokenAccountBalance,
  getTokenSupply,
  getTokenLargestAccounts,
};
