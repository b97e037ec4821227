/**
 * getCompressionSignaturesForAccount: the transactions that created and spent the account with `hash` (at most two),
 * newest first; Record Not Found when none.
 */
import { withContext } from '../../../zk/context.js';
import { recordNotFound } from '../../../zk/errors.js';
import { hash, objectParams, required } from '../../../zk/params.js';
import { signatureInfo } from '../../../zk/serialize.js';
import { getSignaturesForAccount } from '../../../../store/zk/transactions.js';
import type { RpcMethod } from '../../method.js';
import { HASH, byNameParams, paramNames } from '../../params-schema.js';

/** The by-name params (the accepted names come from here; /docs/openrpc.json describes them). */
export const paramsSchema = byNameParams({ hash: HASH }, ['hash']);


export const getCompressionSignaturesForAccount: RpcMethod = {
  name: 'getCompressionSignaturesForAccount',
  credits: 10,
  paramsSchema,
  async handler(params, deps) {
    const p = objectParams(params, paramNames(paramsSchema));
    const h = hash(required(p, 'hash'), 'hash');
    const items = getSignaturesForAccount(deps.db, h).then((sigs) => {
      if (!sigs.length) throw recordNotFound('Account not found');
      return { items: sigs.map(signatureInfo) };
    });
    return withContext(deps, items);
  },
};
