/**
 * The signature lists (helius-labs/photon src/api/method/utils.rs `search_for_signatures`): newest first (slot
 * desc, then signature bytes desc), paged by the slot ‖ signature cursor, null on the last page.
 */
import type { ApiDeps } from '../deps.js';
import { getLatestSignatures, getSignaturesFor, type SignatureListKind } from '../../store/zk/transactions.js';
import { withContext } from './context.js';
import { signatureCursor } from './cursors.js';
import { limit, pubkey, required, schemaParams } from './params.js';
import { signatureInfo } from './serialize.js';
import { PUBKEY, ZK_LIMIT, byNameParams, nullable, type ObjectParamsSchema } from '../rpc/params-schema.js';

/** A signature-list cursor (Photon types it as a plain string: slot u64 LE ‖ signature, 72 bytes, base58). */
const SIGNATURE_CURSOR = nullable({ type: 'string', description: 'the cursor of the previous page (base58 of slot u64 LE ‖ signature, 72 bytes)' });

/** getCompressionSignaturesFor{Owner,TokenOwner,Address} params (`owner` or `address`). */
export const SIGNATURES_FOR_PARAMS: Record<'owner' | 'address', ObjectParamsSchema> = {
  owner: byNameParams({ owner: PUBKEY, cursor: SIGNATURE_CURSOR, limit: ZK_LIMIT }, ['owner']),
  address: byNameParams({ address: { ...PUBKEY, description: 'compressed account address' }, cursor: SIGNATURE_CURSOR, limit: ZK_LIMIT }, ['address']),
};

/** getLatest{Compression,NonVoting}Signatures params (all optional; params may be omitted). */
export const LATEST_SIGNATURES_PARAMS = byNameParams({ cursor: SIGNATURE_CURSOR, limit: ZK_LIMIT });

/** getCompressionSignaturesFor{Owner,TokenOwner,Address}: `{owner | address, cursor?, limit?}`. */
export async function signaturesFor(deps: ApiDeps, params: unknown, kind: SignatureListKind, field: 'owner' | 'address') {
  const p = schemaParams(params, SIGNATURES_FOR_PARAMS[field]);
  const key = pubkey(required(p, field), field);
  const cursor = signatureCursor(p.cursor);
  const page = getSignaturesFor(deps.db, kind, key, { cursor, limit: limit(p.limit) });
  return withContext(deps, page.then((pg) => ({ items: pg.items.map(signatureInfo), cursor: pg.cursor })));
}

/** getLatest{Compression,NonVoting}Signatures: `{cursor?, limit?}` (params may be omitted). */
export function latestParams(params: unknown): { cursor: string | null; limit: number } {
  const p = schemaParams(params, LATEST_SIGNATURES_PARAMS);
  return { cursor: signatureCursor(p.cursor), limit: limit(p.limit) };
}

/** One page of the latest transactions. */
export function latestPage(deps: ApiDeps, params: unknown, onlyCompression: boolean) {
  const { cursor, limit: n } = latestParams(params);
  return getLatestSignatures(deps.db, { cursor, limit: n, onlyCompression });
}
