/**
 * Photon's `CompressedAccountRequest` (`{address?, hash?}`, src/api/method/utils.rs `parse_id`): when `address` is
 * given it wins, else `hash`; neither is a validation error. Used by getCompressedAccount(V2),
 * getCompressedAccountBalance (alias getCompressedBalance) and getCompressedTokenAccountBalance.
 */
import type { Queryable } from '../../store/db.js';
import { getAccountsByAddress, getAccountsByHash } from '../../store/zk/accounts.js';
import type { ZkAccount } from '../../store/zk/types.js';
import { validationError } from './errors.js';
import { optionalHash, optionalPubkey, schemaParams } from './params.js';
import { HASH, PUBKEY, byNameParams, nullable, type ObjectParamsSchema } from '../rpc/params-schema.js';

export type AccountId = { kind: 'address'; address: string } | { kind: 'hash'; hash: string };

/**
 * The `{address?, hash?}` request: an object (params may not be omitted), both fields optional for the schema —
 * giving neither is Photon's -32000 `Validation Error: Either address or hash must be provided`, not a params error.
 */
export const ACCOUNT_ID_PARAMS: ObjectParamsSchema = {
  ...byNameParams(
    {
      address: nullable({ ...PUBKEY, description: 'the compressed account address (wins over hash)' }),
      hash: nullable({ ...HASH, description: 'the account hash (used when no address is given)' }),
    },
    [],
    false,
  ),
  description: 'give address or hash; neither is -32000 `Validation Error: Either address or hash must be provided`',
};

/** The account a `{address?, hash?}` request names (`schema`: the method's, with the same two fields). */
export function parseAccountId(params: unknown, schema: ObjectParamsSchema = ACCOUNT_ID_PARAMS): AccountId {
  const p = schemaParams(params, schema);
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
