/**
 * Photon's `CompressedAccountRequest` (`{address?, hash?}`, src/api/method/utils.rs `parse_id`): when `address` is
 * given it wins, else `hash`; neither is a validation error. Used by getCompressedAccount(V2),
 * getCompressedAccountBalance (alias getCompressedBalance) and getCompressedTokenAccountBalance.
 */
import type { Queryable } from '../../store/db.js';
import { getAccountsByAddress, getAccountsByHash } from '../../store/zk/accounts.js';
import type { ZkAccount } from '../../store/zk/types.js';
import { validationError } from './errors.js';
import { objectParams, optionalHash, optionalPubkey } from './params.js';

export type AccountId = { kind: 'address'; address: string } | { kind: 'hash'; hash: string };

/** The account a `{address?, hash?}` request names. */
export function parseAccountId(params: unknown): AccountId {
  const p = objectParams(params, ['address', 'hash']);
  const address = optionalPubkey(p.address, 'address');
  const hash = optionalHash(p.hash, 'hash');
  if (address !== null) return { kind: 'address', address };
  if (hash !== null) return { kind: 'hash', hash };
  throw validationError('Either address or hash must be provided');
}

/** The unspent account an id names (by address: the live account at that address), or null. */
export async function findAccount(q: Queryable, id: AccountId): Promise<ZkAccount | null> {
  if (id.kind === 'address') return (await getAccountsByAddress(q, [id.address])).get(id.address) ?? null;
  return (await getAccountsByHash(q, [id.hash])).get(id.hash) ?? null;
}
