/**
 * Drift probe of DAS asset owners (non-compressed, single-owner assets), compared with the cluster at the same slot:
 *
 * - Token-backed assets (Token Metadata NFTs, Token-2022 NFTs): the served owner (das_assets.owner) must be the owner
 *   of the token account DAS takes it from, and that account must still hold the mint on the cluster. When it no
 *   longer does, the mint's largest account (`getTokenLargestAccounts` at the same slot or later) names the holder.
 * - MPL Core assets: both the indexed asset account's owner and the served owner must be the owner field of the
 *   asset account on the cluster (none once the account is gone or burnt).
 *
 * Rows whose sources changed after the cluster's state are skipped. Repair: the accounts read are written through the
 * ingester's account path, which marks the asset dirty so its DAS row is derived again.
 */
import { MPL_CORE_PROGRAM } from '../../parsers/asset-accounts.js';
import { decodeTokenProgramAccount } from '../../parsers/accounts/token-program.js';
import { decodeMplCoreAccount } from '../../parsers/mpl-core/accounts.js';
import { SYSTEM_PROGRAM, TOKEN_PROGRAM } from '../../core/programs.js';
import type { AccountUpdate } from '../../core/model.js';
import { fetchAccountsAtSlot } from '../../sources/account-fetch.js';
import { accountPos } from '../../store/block-update.js';
import type { Db } from '../../store/db.js';
import { readAssetOwners, sampleOwnedAssets, type IndexedAssetOwner } from '../../store/drift.js';
import type { DriftProbe, DriftRound } from './types.js';

export async function assetOwnerProbe(db: Db, from: string, n: number): Promise<DriftProbe> {
  const sample = await sampleOwnedAssets(db, from, n);
  const first = await readAssetOwners(db, sample);
  const requests = [...first.values()].flatMap((a) => {
    if (a.core) return [{ pubkey: a.id, closedOwner: MPL_CORE_PROGRAM }];
    if (a.tokenBacked && a.holder) return [{ pubkey: a.holder.address, closedOwner: TOKEN_PROGRAM }];
    return [];
  });
  return {
    requests,
    async compare(r) {
      const now = await readAssetOwners(r.db, sample);
      for (const a of now.values()) {
        if (a.core) compareCore(r, a);
        else if (a.tokenBacked && a.holder) await compareTokenBacked(r, a);
      }
    },
  };
}

function compareCore(r: DriftRound, a: IndexedAssetOwner): void {
  const state = r.states.get(a.id);
  if (!state || !a.core) return;
  if (a.core.slot > state.slot || a.updatedSlot > state.slot) {
    r.skipped();
    return;
  }
  r.checked('core_asset_owner');
  const decoded = state.owner === MPL_CORE_PROGRAM ? decodeMplCoreAccount(a.id, state.data) : null;
  const clusterOwner = decoded?.kind === 'core.asset' ? decoded.owner : null;
  const indexedOwner = a.core.kind === 'core.asset' ? a.core.owner : null;
  // A burnt or closed asset keeps no owner on the cluster; its DAS row is then not judged on owner (burnt rows are not sampled).
  if (indexedOwner === clusterOwner && (clusterOwner === null || a.owner === clusterOwner)) return;
  r.mismatch({
    kind: 'core_asset_owner', address: a.id, slot: state.slot,
    indexed: { owner: a.owner, accountOwner: indexedOwner, kind: a.core.kind },
    cluster: { owner: clusterOwner, kind: decoded?.kind ?? 'gone' },
    action: 'rewritten',
  });
  r.rewrite(state);
}

async function compareTokenBacked(r: DriftRound, a: IndexedAssetOwner): Promise<void> {
  const holder = a.holder!;
  const state = r.states.get(holder.address);
  if (!state) return; // the holder changed since the sample: judged in a later round
  if (holder.pos > accountPos(state.slot) || a.updatedSlot > state.slot) {
    r.skipped();
    return;
  }
  r.checked('asset_owner');
  const holds = (u: AccountUpdate) => {
    const d = decodeTokenProgramAccount(u);
    return d?.kind === 'account' && d.mint === a.id && d.amount > 0n ? d.owner : null;
  };
  const owner = holds(state);
  if (owner !== null && owner === a.owner && owner === holder.owner) return;
  let cluster: { owner: string | null; tokenAccount: string | null } = { owner, tokenAccount: owner !== null ? holder.address : null };
  r.rewrite(state);
  if (owner === null) {
    // The indexed holder no longer holds it: the mint's largest account does (an NFT has one holder).
    const largest = await largestAccount(r, a.id);
    if (largest) {
      r.rewrite(largest);
      cluster = { owner: holds(largest), tokenAccount: largest.pubkey };
    }
  }
  r.mismatch({
    kind: 'asset_owner', address: a.id, slot: state.slot,
    indexed: { owner: a.owner, tokenAccount: holder.address, tokenAccountOwner: holder.owner },
    cluster,
    action: 'rewritten',
  });
}

/** The mint's largest token account as of the round's slot or later, or null (none, or the method failed). */
async function largestAccount(r: DriftRound, mint: string): Promise<AccountUpdate | null> {
  try {
    const res = await r.client.call<{ value?: { address?: string; amount?: string }[] }>(
      'getTokenLargestAccounts', [mint, { commitment: r.commitment, minContextSlot: r.slot }], r.signal,
    );
    const top = res?.value?.find((v) => typeof v.address === 'string' && v.amount !== '0');
    if (!top?.address) return null;
    const [u] = await fetchAccountsAtSlot(r.client, r.slot, [{ pubkey: top.address, closedOwner: SYSTEM_PROGRAM }], { commitment: r.commitment, signal: r.signal });
    return u ?? null;
  } catch {
    return null;
  }
}
