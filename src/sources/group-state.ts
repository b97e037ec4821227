/**
 * Hydration source for DAS lists by key: every asset of a collection (`group`), naming a creator (`creator`) or
 * having an authority (`authority`) that is an account, read from the cluster RPC with `getProgramAccounts` memcmp
 * filters, as account updates the ingester writes through the same guarded path as live data (like
 * `wallet-state.ts` for a wallet). Every call after the first carries `minContextSlot` = the first call's slot.
 *
 * Layouts (offsets from the program clients' codecs, `@metaplex-foundation/mpl-core` `getAssetV1GpaBuilder` and
 * `@metaplex-foundation/mpl-token-metadata` `getMetadataGpaBuilder`, checked against recorded mainnet accounts in
 * test/sources/group-state.test.ts):
 * - MPL Core `AssetV1`: key byte 1 at 0, owner at 1, update authority at 33 — a `BaseUpdateAuthority` enum byte
 *   (0 None, 1 `Address`, 2 `Collection`) then its address at 34. `CollectionV1`: key byte 5 at 0, update
 *   authority at 1.
 * - Token Metadata `Metadata`: key byte 4 at 0, update authority at 1, mint at 33; name, symbol and uri are padded
 *   with NULs to 32, 10 and 200 bytes (the program's `puff_out_data_fields`, there for exactly this kind of
 *   filter), so the creators `Option<Vec<Creator>>` tag is at 321, its length at 322 and creator i's address at
 *   326 + 34·i (at most 5 creators).
 * - The Token Metadata collection comes after the creators and two optional fields, so its offset is one of a
 *   finite set: creators None (next field at 322) or Some(n), n = 0…5 (at 326 + 34·n); then primary sale and
 *   mutable (2 bytes), edition nonce `Option<u8>` (1 or 2), token standard `Option<u8>` (1 or 2), the collection's
 *   Option tag and `verified` (2): the key is at base + 6, 7 or 8 — 21 offsets, each one filtered call. The
 *   alternative, reading the collection mint's signature history (every verify lists the collection mint), costs
 *   one `getTransaction` per verification ever made (10,000 for a 10,000-item collection, against 21 calls here),
 *   needs a ledger kept from the collection's start (most RPCs prune it) and would not see items whose membership
 *   is unverified; the filters read the current state at one slot, like every other hydration. A filter may match
 *   an account where the key sits in another field: only accounts whose decoded field is the key are kept.
 *
 * For each Token Metadata item: its mint, (master) edition and, for a supply of 1, the token account holding it
 * (`getTokenLargestAccounts`, one call per NFT). For MPL Core items: the collections they belong to.
 *
 * Whether the accounts read are every asset of the key is decided from the chain itself (`partial`):
 * - a collection counts its members: MPL Core `current_size`, Token Metadata sized collections
 *   (`CollectionDetails::V1.size`, verified items). When the count equals the items read, nothing is missing;
 *   otherwise the rest are compressed NFTs (minted by Bubblegum, which updates the count; they are leaves of a
 *   tree, found only in its history) or the count is unknown (unsized or no collection account);
 * - an authority is complete unless it is a Bubblegum tree's config account (the authority of its compressed NFTs);
 * - a creator never is: compressed NFTs and MPL Core assets (whose creators are in the variable-length Royalties
 *   plugin) name creators where no filter can find them.
 */
import type { AccountUpdate, Address } from '../core/model.js';
import type { KeyNeed } from '../core/coverage.js';
import { SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../core/programs.js';
import { base58ToBytes, bytesToBase58 } from '../core/encoding.js';
import { mapLimit } from '../core/map-limit.js';
import { decodeAssetAccount, MPL_CORE_PROGRAM, TOKEN_METADATA_PROGRAM } from '../parsers/asset-accounts.js';
import type { CoreAssetAccount, TmMetadataAccount } from '../parsers/asset-account-types.js';
import { decodeTokenProgramAccount } from '../parsers/accounts/token-program.js';
import { BUBBLEGUM_PROGRAM } from '../parsers/bubblegum/instructions.js';
import { nftHolder, tokenMetadataPdas } from './asset-state.js';
import { fetchAccountsAtSlot } from './account-fetch.js';
import { keyedAccounts } from './wallet-state.js';
import type { RpcClient } from './rpc-client.js';

export interface KeyState {
  updates: AccountUpdate[];
  /** The lowest context slot of the reads. */
  slot: number;
  calls: number;
  /** Assets found (Token Metadata items and MPL Core assets and collections). */
  assets: number;
  /** null: the accounts read are every asset of the key; else what the index may still lack, and why. */
  partial: string | null;
}

export interface KeyStateOptions {
  commitment: 'confirmed' | 'finalized';
  signal?: AbortSignal;
  /** Calls in flight at once (filtered scans, holder look-ups). Default 4. */
  concurrency?: number;
}

/** Account key bytes. */
const CORE_ASSET_KEY = 1;
const CORE_COLLECTION_KEY = 5;
const TM_METADATA_KEY = 4;
/** `BaseUpdateAuthority` of an MPL Core asset: enum byte at 33, address at 34. */
export const CORE_UPDATE_AUTHORITY_OFFSET = 33;
const UA_ADDRESS = 1;
const UA_COLLECTION = 2;
/** Token Metadata: update authority, first creator address, creator entry size, most creators. */
export const TM_UPDATE_AUTHORITY_OFFSET = 1;
export const TM_FIRST_CREATOR_OFFSET = 326;
const TM_CREATOR_SIZE = 34;
const TM_MAX_CREATORS = 5;

/** The offsets at which creator i (0…4) of a Token Metadata `Metadata` account is. */
export const TM_CREATOR_OFFSETS: readonly number[] = Array.from({ length: TM_MAX_CREATORS }, (_, i) => TM_FIRST_CREATOR_OFFSET + TM_CREATOR_SIZE * i);

/** Every offset the collection key of a Token Metadata `Metadata` account can be at (see the module comment). */
export const TM_COLLECTION_KEY_OFFSETS: readonly number[] = (() => {
  const bases = [TM_FIRST_CREATOR_OFFSET - 4, ...Array.from({ length: TM_MAX_CREATORS + 1 }, (_, n) => TM_FIRST_CREATOR_OFFSET + TM_CREATOR_SIZE * n)];
  const out = new Set<number>();
  for (const b of bases) for (const nonce of [1, 2]) for (const standard of [1, 2]) out.add(b + 2 + nonce + standard + 2);
  return [...out].sort((x, y) => x - y);
})();

/** Accounts per `getMultipleAccounts` round (10 requests of 100 in parallel). */
const FETCH_WINDOW = 1000;

const exists = (u: AccountUpdate): boolean => u.lamports > 0n || u.data.length > 0 || u.owner !== SYSTEM_PROGRAM;

type Filter = { memcmp: { offset: number; bytes: string } };
const memcmp = (offset: number, ...parts: (number[] | Uint8Array)[]): Filter => ({
  memcmp: { offset, bytes: bytesToBase58(Uint8Array.from(parts.flatMap((p) => [...p]))) },
});

/** Reads what the index needs to list `key`'s assets (see the module comment). Throws on an RPC failure; nothing is written here. */
export async function fetchKeyState(client: RpcClient, need: KeyNeed, key: string, opts: KeyStateOptions): Promise<KeyState> {
  const limit = opts.concurrency ?? 4;
  const keyBytes = base58ToBytes(key);
  let calls = 0;
  /** The lowest context slot of the reads so far. */
  let low = Number.MAX_SAFE_INTEGER;
  const at = async (minSlot: number, keys: string[]): Promise<AccountUpdate[]> => {
    const out: AccountUpdate[] = [];
    for (let i = 0; i < keys.length; i += FETCH_WINDOW) {
      const part = keys.slice(i, i + FETCH_WINDOW);
      calls += Math.ceil(part.length / 100);
      const got = await fetchAccountsAtSlot(client, minSlot, part.map((pubkey) => ({ pubkey: pubkey as Address, closedOwner: SYSTEM_PROGRAM as Address })), { commitment: opts.commitment, signal: opts.signal });
      for (const u of got) low = Math.min(low, u.slot);
      out.push(...got);
    }
    return out;
  };

  // The key's own account first: its slot is the floor of every later read.
  const [self] = await at(0, [key]);
  const s0 = self.slot;
  const scan = async (program: string, filters: Filter[]): Promise<AccountUpdate[]> => {
    calls++;
    const res = await client.call('getProgramAccounts', [program, { encoding: 'base64', commitment: opts.commitment, minContextSlot: s0, withContext: true, filters }], opts.signal);
    const r = keyedAccounts('getProgramAccounts', res, s0);
    low = Math.min(low, r.slot);
    return r.updates;
  };
  const scanAll = async (program: string, filterSets: Filter[][]) => (await mapLimit(filterSets, limit, (f) => scan(program, f))).flat();
  const metadataWhere = (offsets: readonly number[]) => scanAll(TOKEN_METADATA_PROGRAM, offsets.map((o) => [memcmp(0, [TM_METADATA_KEY]), memcmp(o, keyBytes)]));
  const coreAssetsWhere = (ua: number, address: Uint8Array) => scan(MPL_CORE_PROGRAM, [memcmp(0, [CORE_ASSET_KEY]), memcmp(CORE_UPDATE_AUTHORITY_OFFSET, [ua], address)]);

  const metadata: TmMetadataAccount[] = [];
  const core: AccountUpdate[] = [];
  const updates = new Map<string, AccountUpdate>();
  const keep = (u: AccountUpdate) => {
    if (!updates.has(u.pubkey)) updates.set(u.pubkey, u);
  };
  /** Keeps the Token Metadata accounts `match` accepts (the filters may match the key in another field). */
  const keepMetadata = (found: AccountUpdate[], match: (m: TmMetadataAccount) => boolean) => {
    for (const u of found) {
      const d = decodeAssetAccount(u);
      if (d?.kind !== 'tm.metadata' || !match(d) || updates.has(u.pubkey)) continue;
      metadata.push(d);
      keep(u);
    }
  };
  const keepCore = (found: AccountUpdate[], match: (a: CoreAssetAccount) => boolean) => {
    for (const u of found) {
      const d = decodeAssetAccount(u);
      if (d?.kind !== 'core.asset' || !match(d) || updates.has(u.pubkey)) continue;
      core.push(u);
      keep(u);
    }
  };

  let partial: string | null = null;
  const selfDecoded = self.owner === MPL_CORE_PROGRAM ? decodeAssetAccount(self) : null;
  /** Mints whose Token Metadata parts are read, and the collection mint whose metadata tells its size. */
  let collectionMint: string | null = null;

  if (need === 'group') {
    if (selfDecoded?.kind === 'core.collection') {
      keep(self);
      keepCore(await coreAssetsWhere(UA_COLLECTION, keyBytes), (a) => a.updateAuthority.type === 'Collection' && a.updateAuthority.address === key);
      const size = selfDecoded.currentSize;
      if (size !== core.length) partial = `the collection counts ${size} asset${size === 1 ? '' : 's'} and ${core.length} ${core.length === 1 ? 'is an MPL Core account' : 'are MPL Core accounts'}; the others are compressed NFTs, read only from their tree's history`;
    } else {
      keepMetadata(await metadataWhere(TM_COLLECTION_KEY_OFFSETS), (m) => m.collection?.key === key);
      const isMint = (self.owner === TOKEN_PROGRAM || self.owner === TOKEN_2022_PROGRAM) && decodeTokenProgramAccount(self)?.kind === 'mint';
      if (isMint) {
        collectionMint = key;
        keep(self);
      }
      else partial = 'no collection mint account: how many items the collection has is not known, so compressed NFTs of it cannot be ruled out';
    }
  } else if (need === 'creator') {
    keepMetadata(await metadataWhere(TM_CREATOR_OFFSETS), (m) => (m.creators ?? []).some((c) => c.address === key));
    partial = 'compressed NFTs and MPL Core assets (whose creators are in the Royalties plugin) naming this creator are not found by account filters';
  } else {
    const [tm, direct, collections] = await Promise.all([
      metadataWhere([TM_UPDATE_AUTHORITY_OFFSET]),
      coreAssetsWhere(UA_ADDRESS, keyBytes),
      scan(MPL_CORE_PROGRAM, [memcmp(0, [CORE_COLLECTION_KEY]), memcmp(1, keyBytes)]),
    ]);
    keepMetadata(tm, (m) => m.updateAuthority === key);
    keepCore(direct, (a) => a.updateAuthority.type === 'Address' && a.updateAuthority.address === key);
    // An asset in a collection has the collection's update authority: the collections' assets are the key's too.
    const mine = collections.filter((u) => {
      const d = decodeAssetAccount(u);
      return d?.kind === 'core.collection' && d.updateAuthority === key;
    });
    for (const c of mine) keep(c);
    const members = await mapLimit(mine, limit, (c) => coreAssetsWhere(UA_COLLECTION, base58ToBytes(c.pubkey)));
    mine.forEach((c, i) => keepCore(members[i], (a) => a.updateAuthority.type === 'Collection' && a.updateAuthority.address === c.pubkey));
    core.push(...mine);
    if (self.owner === BUBBLEGUM_PROGRAM) partial = 'a Bubblegum tree config: the authority of its compressed NFTs, which are read only from the tree\'s history';
  }

  // MPL Core assets in a collection need it (their authority is the collection's).
  const collectionsOf = [...new Set(core.flatMap((u) => {
    const d = decodeAssetAccount(u);
    return d?.kind === 'core.asset' && d.updateAuthority.type === 'Collection' && d.updateAuthority.address && !updates.has(d.updateAuthority.address) ? [d.updateAuthority.address] : [];
  }))];

  // Token Metadata items: mint and (master) edition; the collection mint also with its metadata.
  const mints = [...new Set(metadata.map((m) => m.mint))];
  const parts = [
    ...mints.flatMap((m) => [m, tokenMetadataPdas(m)[1]]),
    ...(collectionMint ? [collectionMint, ...tokenMetadataPdas(collectionMint)] : []),
    ...collectionsOf,
  ].filter((a) => !updates.has(a));
  const read = (await at(s0, [...new Set(parts)])).filter(exists);
  for (const u of read) keep(u);

  // The token account holding each NFT (a mint of supply 1).
  const nfts = [...new Set([...mints, ...(collectionMint ? [collectionMint] : [])])].filter((m) => {
    const u = updates.get(m);
    const d = u ? decodeTokenProgramAccount(u) : null;
    return d?.kind === 'mint' && d.supply === 1n;
  });
  calls += nfts.length;
  const holders = (await mapLimit(nfts, Math.max(limit, 8), (m) => nftHolder(client, m, s0, opts))).filter((h): h is string => h !== null && !updates.has(h));
  for (const u of (await at(s0, [...new Set(holders)])).filter(exists)) keep(u);

  if (collectionMint) {
    const u = updates.get(tokenMetadataPdas(collectionMint)[0]);
    const d = u ? decodeAssetAccount(u) : null;
    const details = d?.kind === 'tm.metadata' ? d.collectionDetails : null;
    const verified = metadata.filter((m) => m.collection?.verified).length;
    if (details?.version !== 'V1') partial = 'an unsized collection: how many items it has is not recorded on chain, so compressed NFTs of it cannot be ruled out';
    else if (details.size !== BigInt(verified)) partial = `the collection counts ${details.size} verified item${details.size === 1n ? '' : 's'} and ${verified} ${verified === 1 ? 'is a Token Metadata account' : 'are Token Metadata accounts'}; the others are compressed NFTs, read only from their tree's history`;
  }

  const list = [...updates.values()];
  return { updates: list, slot: low, calls, assets: metadata.length + core.length, partial };
}
