/**
 * getMultipleCompressedAccounts(V2) (helius-labs/photon src/api/method/get_multiple_compressed_accounts.rs):
 * `{hashes}` or `{addresses}` (exactly one, at most 1000); the unspent accounts aligned with the request, null
 * where none.
 */
import type { ApiDeps } from '../deps.js';
import { getAccountsByAddress, getAccountsByHash } from '../../store/zk/accounts.js';
import type { ZkAccount } from '../../store/zk/types.js';
import { paramsError, validationError } from './errors.js';
import { hash, PAGE_LIMIT, pubkey, schemaParams } from './params.js';
import { HASH, PUBKEY, byNameParams, nullable } from '../rpc/params-schema.js';

/** getMultipleCompressedAccounts(V2) params: exactly one of `hashes` / `addresses` (neither or both: -32000). */
export const MULTIPLE_ACCOUNTS_PARAMS = {
  ...byNameParams({
    hashes: nullable({ type: 'array', items: HASH, maxItems: PAGE_LIMIT, description: 'account hashes (not with addresses)' }),
    addresses: nullable({ type: 'array', items: PUBKEY, maxItems: PAGE_LIMIT, description: 'compressed account addresses (not with hashes)' }),
  }),
  description: 'give hashes or addresses; neither or both is -32000 `Validation Error: Either hashes or addresses must be provided`',
};

export async function multipleAccounts(deps: ApiDeps, params: unknown): Promise<(ZkAccount | null)[]> {
  const p = schemaParams(params, MULTIPLE_ACCOUNTS_PARAMS);
  const given = (v: unknown) => v !== undefined && v !== null;
  if (given(p.hashes) === given(p.addresses)) throw validationError('Either hashes or addresses must be provided');
  const kind = given(p.hashes) ? 'hashes' : 'addresses';
  const raw = p[kind];
  if (!Array.isArray(raw)) throw paramsError(`\`${kind}\`: invalid type, expected an array`);
  if (raw.length > PAGE_LIMIT) throw validationError(`Too many ${kind} requested ${raw.length}. Maximum allowed: ${PAGE_LIMIT}`);
  if (kind === 'hashes') {
    const hashes = raw.map((h, i) => hash(h, `hashes[${i}]`));
    const found = await getAccountsByHash(deps.db, [...new Set(hashes)]);
    return hashes.map((h) => found.get(h) ?? null);
  }
  const addresses = raw.map((a, i) => pubkey(a, `addresses[${i}]`));
  const found = await getAccountsByAddress(deps.db, [...new Set(addresses)]);
  return addresses.map((a) => found.get(a) ?? null);
}
