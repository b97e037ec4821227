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

export const getCompressionSignaturesForAccount: RpcMethod = {
  name: 'getCompressionSignaturesForAccount',
  credits: 10,
  async handler(params, deps) {
    const p = objectParams(params, ['hash']);
    const h = hash(required(p, 'hash'), 'hash');
    const items = getSignaturesForAccount(deps.db, h).then((sigs) => {
      if (!sigs.length) throw recordNotFound('Account not found');
      return { items: sigs.map(signatureInfo) };
    });
    return withContext(deps, items);
  },
};
