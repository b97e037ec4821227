/**
 * Hydration source for DAS by id: the current state of one asset read from the cluster RPC, as account updates
 * written through the ingester's guarded account path (like `wallet-state.ts` for a wallet).
 *
 * - An SPL Token / Token-2022 mint: the mint, its Token Metadata metadata and (master) edition accounts and, for a
 *   mint of supply 1 (an NFT), the token account that holds it (`getTokenLargestAccounts`), so the owner is known.
 * - An MPL Core asset: the asset and the collection it belongs to.
 * - Anything else (a wallet, a program, an address the cluster does not know): nothing — DAS then answers that the
 *   asset is not found. Compressed NFTs are not accounts; their trees are rebuilt from history instead.
 */
import type { AccountUpdate, Address } from '../core/model.js';
import { SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../core/programs.js';
import { base58ToBytes } from '../core/encoding.js';
import { decodeAssetAccount, MPL_CORE_PROGRAM, TOKEN_METADATA_PROGRAM } from '../parsers/asset-accounts.js';
import { decodeTokenProgramAccount } from '../parsers/accounts/token-program.js';
import { findProgramAddressSync } from '../parsers/bubblegum/index.js';
import { fetchAccountsAtSlot } from './account-fetch.js';
import type { RpcClient } from './rpc-client.js';

export interface AssetState {
  updates: AccountUpdate[];
  /** The lowest context slot of the reads. */
  slot: number;
  calls: number;
}

const METADATA_SEED = new TextEncoder().encode('metadata');
const EDITION_SEED = new TextEncoder().encode('edition');

/** Token Metadata's metadata and (master) edition PDAs of a mint. */
export function tokenMetadataPdas(mint: string): [string, string] {
  const seeds = [METADATA_SEED, base58ToBytes(TOKEN_METADATA_PROGRAM), base58ToBytes(mint)];
  return [
    findProgramAddressSync(seeds, TOKEN_METADATA_PROGRAM as Address)[0],
    findProgramAddressSync([...seeds, EDITION_SEED], TOKEN_METADATA_PROGRAM as Address)[0],
  ];
}

/**
 * The token account holding the one token of an NFT mint (supply 1), from `getTokenLargestAccounts` at `minSlot` or
 * later; null when no account holds it.
 */
export async function nftHolder(client: RpcClient, mint: string, minSlot: number, opts: { commitment: 'confirmed' | 'finalized'; signal?: AbortSignal }): Promise<string | null> {
  const largest = await client.call<{ value?: { address?: unknown; amount?: unknown }[] }>(
    'getTokenLargestAccounts', [mint, { commitment: opts.commitment, minContextSlot: minSlot }], opts.signal,
  );
  const holder = largest?.value?.find((v) => v.amount === '1')?.address;
  return typeof holder === 'string' ? holder : null;
}

const exists = (u: AccountUpdate): boolean => u.lamports > 0n || u.data.length > 0 || u.owner !== SYSTEM_PROGRAM;

/** Reads asset `id`'s current state (see the module comment). Throws on an RPC failure. */
export async function fetchAssetState(client: RpcClient, id: string, opts: { commitment: 'confirmed' | 'finalized'; signal?: AbortSignal }): Promise<AssetState> {
  let calls = 0;
  const at = (minSlot: number, keys: string[]) => {
    calls += Math.ceil(keys.length / 100);
    return fetchAccountsAtSlot(client, minSlot, keys.map((pubkey) => ({ pubkey: pubkey as Address, closedOwner: SYSTEM_PROGRAM as Address })), { commitment: opts.commitment, signal: opts.signal });
  };
  const [self] = await at(0, [id]);
  const s0 = self.slot;
  if (!exists(self)) return { updates: [], slot: s0, calls };
  const related: string[] = [];
  if (self.owner === TOKEN_PROGRAM || self.owner === TOKEN_2022_PROGRAM) {
    const mint = decodeTokenProgramAccount(self);
    if (mint?.kind !== 'mint') return { updates: [], slot: s0, calls };
    related.push(...tokenMetadataPdas(id));
    if (mint.supply === 1n) {
      calls++;
      const holder = await nftHolder(client, id, s0, opts);
      if (holder) related.push(holder);
    }
  } else if (self.owner === MPL_CORE_PROGRAM) {
    const d = decodeAssetAccount(self);
    if (d?.kind === 'core.asset' && d.updateAuthority.type === 'Collection' && d.updateAuthority.address) related.push(d.updateAuthority.address);
  } else return { updates: [], slot: s0, calls };
  const more = related.length ? (await at(s0, related)).filter(exists) : [];
  return { updates: [self, ...more], slot: Math.min(s0, ...more.map((u) => u.slot)), calls };
}
