/**
 * Hydration source: the current state of one wallet read from the cluster RPC, as account updates the ingester
 * writes with the same (slot, write version) guards as live data, so a block ingested meanwhile and this state
 * merge in any order.
 *
 * What is read (every call after the first with `minContextSlot` = the first call's slot, so no part is older):
 * 1. the wallet account itself (`getMultipleAccounts`; a wallet the cluster does not know is written as an empty
 *    System account: 0 SOL);
 * 2. its token accounts of both token programs (`getTokenAccountsByOwner` by program id, base64);
 * 3. the mints of those accounts, their Token Metadata metadata and (master) edition accounts;
 * 4. its MPL Core assets (`getProgramAccounts` of MPL Core, `memcmp` on the owner at offset 1, assets only) and the
 *    collections they belong to.
 * Token Metadata PDAs that do not exist are left out (nothing to write); everything else is written as found.
 */
import type { AccountUpdate, Address } from '../core/model.js';
import { SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../core/programs.js';
import { bytesToBase58 } from '../core/encoding.js';
import { decodeAssetAccount, MPL_CORE_PROGRAM } from '../parsers/asset-accounts.js';
import { tokenMetadataPdas } from './asset-state.js';
import { fetchAccountsAtSlot, type AccountFetchRequest } from './account-fetch.js';
import { normalizeAccountSnapshot } from './normalize-rpc.js';
import type { RpcClient } from './rpc-client.js';

export interface WalletState {
  updates: AccountUpdate[];
  /** The lowest context slot of the reads: the state is at least as new as this slot. */
  slot: number;
  /** JSON-RPC calls made. */
  calls: number;
}

export interface WalletStateOptions {
  commitment: 'confirmed' | 'finalized';
  signal?: AbortSignal;
}

/** MPL Core account key byte of an AssetV1 (`Key::AssetV1`). */
const CORE_ASSET_KEY = 1;

interface KeyedAccount {
  pubkey: string;
  account: Record<string, unknown>;
}


/** The `{context, value: [{pubkey, account}]}` answers of getTokenAccountsByOwner / getProgramAccounts(withContext). */
export function keyedAccounts(method: string, res: unknown, minSlot: number): { slot: number; updates: AccountUpdate[] } {
  const r = res as { context?: { slot?: unknown }; value?: unknown } | null;
  const slot = Number(r?.context?.slot);
  if (!Number.isSafeInteger(slot) || slot < minSlot) throw new Error(`${method}: context slot ${JSON.stringify(r?.context?.slot)} is not at least ${minSlot}`);
  if (!Array.isArray(r?.value)) throw new Error(`${method}: expected a list of accounts, got ${JSON.stringify(r?.value)?.slice(0, 200)}`);
  const updates = (r.value as KeyedAccount[]).map((k) => normalizeAccountSnapshot({ ...k.account, pubkey: k.pubkey, slot }));
  return { slot, updates: updates.map((u) => ({ ...u, writeVersion: 0n })) };
}

/** The mint of an SPL token account (bytes 0..32 of either token program's layout). */
function tokenAccountMint(u: AccountUpdate): string | null {
  return u.data.length >= 64 ? bytesToBase58(u.data.subarray(0, 32)) : null;
}

const exists = (u: AccountUpdate): boolean => u.lamports > 0n || u.data.length > 0 || u.owner !== SYSTEM_PROGRAM;

/** Reads `wallet`'s current state (see the module comment). Throws on an RPC failure; nothing is written here. */
export async function fetchWalletState(client: RpcClient, wallet: string, opts: WalletStateOptions): Promise<WalletState> {
  let calls = 0;
  const call = <T>(method: string, params: unknown[]): Promise<T> => {
    calls++;
    return client.call<T>(method, params, opts.signal);
  };
  const at = (minSlot: number, requests: AccountFetchRequest[]) => {
    calls += Math.ceil(requests.length / 100);
    return fetchAccountsAtSlot(client, minSlot, requests, { commitment: opts.commitment, signal: opts.signal });
  };

  const [self] = await at(0, [{ pubkey: wallet as Address, closedOwner: SYSTEM_PROGRAM as Address }]);
  const s0 = self.slot;
  const cfg = { encoding: 'base64', commitment: opts.commitment, minContextSlot: s0 };
  const [classic, t22, core] = await Promise.all([
    call('getTokenAccountsByOwner', [wallet, { programId: TOKEN_PROGRAM }, cfg]),
    call('getTokenAccountsByOwner', [wallet, { programId: TOKEN_2022_PROGRAM }, cfg]),
    call('getProgramAccounts', [MPL_CORE_PROGRAM, {
      ...cfg,
      withContext: true,
      filters: [{ memcmp: { offset: 0, bytes: bytesToBase58(new Uint8Array([CORE_ASSET_KEY])) } }, { memcmp: { offset: 1, bytes: wallet } }],
    }]),
  ]);
  const tokens = [keyedAccounts('getTokenAccountsByOwner', classic, s0), keyedAccounts('getTokenAccountsByOwner', t22, s0)];
  const coreAssets = keyedAccounts('getProgramAccounts', core, s0);

  const mints = [...new Set(tokens.flatMap((t) => t.updates.map(tokenAccountMint)).filter((m): m is string => m !== null))];
  const collections = new Set<string>();
  for (const u of coreAssets.updates) {
    const d = decodeAssetAccount(u);
    if (d?.kind === 'core.asset' && d.updateAuthority.type === 'Collection' && d.updateAuthority.address) collections.add(d.updateAuthority.address);
  }
  const requests: AccountFetchRequest[] = [
    ...mints.map((m) => ({ pubkey: m as Address, closedOwner: SYSTEM_PROGRAM as Address })),
    ...mints.flatMap((m) => tokenMetadataPdas(m)).map((p) => ({ pubkey: p as Address, closedOwner: SYSTEM_PROGRAM as Address })),
    ...[...collections].map((c) => ({ pubkey: c as Address, closedOwner: SYSTEM_PROGRAM as Address })),
  ];
  const related = requests.length ? await at(s0, requests) : [];
  const mintSet = new Set(mints);

  return {
    updates: [self, ...tokens.flatMap((t) => t.updates), ...coreAssets.updates, ...related.filter((u) => mintSet.has(u.pubkey) || exists(u))],
    slot: Math.min(s0, ...tokens.map((t) => t.slot), coreAssets.slot, ...related.map((u) => u.slot)),
    calls,
  };
}
