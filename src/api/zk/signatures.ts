/**
 * The signature lists (helius-labs/photon src/api/method/utils.rs `search_for_signatures`): newest first (slot
 * desc, then signature bytes desc), paged by the slot ‖ signature cursor, null on the last page.
 */
import type { ApiDeps } from '../deps.js';
import { getLatestSignatures, getSignaturesFor, type SignatureListKind } from '../../store/zk/transactions.js';
import { withContext } from './context.js';
import { signatureCursor } from './cursors.js';
import { limit, objectParams, pubkey, required } from './params.js';
import { signatureInfo } from './serialize.js';

/** getCompressionSignaturesFor{Owner,TokenOwner,Address}: `{owner | address, cursor?, limit?}`. */
export async function signaturesFor(deps: ApiDeps, params: unknown, kind: SignatureListKind, field: 'owner' | 'address') {
  const p = objectParams(params, [field, 'cursor', 'limit']);
  const key = pubkey(required(p, field), field);
  const cursor = signatureCursor(p.cursor);
  const page = getSignaturesFor(deps.db, kind, key, { cursor, limit: limit(p.limit) });
  return withContext(deps, page.then((pg) => ({ items: pg.items.map(signatureInfo), cursor: pg.cursor })));
}

/** getLatest{Compression,NonVoting}Signatures: `{cursor?, limit?}` (params may be omitted). */
export function latestParams(params: unknown): { cursor: string | null; limit: number } {
  const p = objectParams(params, ['cursor', 'limit'], true);
  return { cursor: signatureCursor(p.cursor), limit: limit(p.limit) };
}

/** One page of the latest transactions. */
export function latestPage(deps: ApiDeps, params: unknown, onlyCompression: boolean) {
  const { cursor, limit: n } = latestParams(params);
  return getLatestSignatures(deps.db, { cursor, limit: n, onlyCompression });
}
