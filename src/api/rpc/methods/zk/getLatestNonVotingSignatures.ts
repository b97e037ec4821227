/**
 * getLatestNonVotingSignatures: the newest non-vote transactions the index keeps, failed ones included with their
 * `error`; paged by `cursor` / `limit` like the other lists, but the result carries no cursor (as Photon's).
 */
import { withContext } from '../../../zk/context.js';
import { LATEST_SIGNATURES_PARAMS, latestPage } from '../../../zk/signatures.js';
import { signatureInfoWithError } from '../../../zk/serialize.js';
import type { RpcMethod } from '../../method.js';

export const getLatestNonVotingSignatures: RpcMethod = {
  name: 'getLatestNonVotingSignatures',
  credits: 10,
  paramsSchema: LATEST_SIGNATURES_PARAMS,
  async handler(params, deps) {
    const page = latestPage(deps, params, false);
    return withContext(deps, page.then((p) => ({ items: p.items.map(signatureInfoWithError) })));
  },
};
