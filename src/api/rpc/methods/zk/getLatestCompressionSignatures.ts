/** getLatestCompressionSignatures: the newest transactions that used ZK Compression, paged by `cursor` / `limit`. */
import { withContext } from '../../../zk/context.js';
import { LATEST_SIGNATURES_PARAMS, latestPage } from '../../../zk/signatures.js';
import { signatureInfo } from '../../../zk/serialize.js';
import type { RpcMethod } from '../../method.js';

export const getLatestCompressionSignatures: RpcMethod = {
  name: 'getLatestCompressionSignatures',
  credits: 10,
  paramsSchema: LATEST_SIGNATURES_PARAMS,
  async handler(params, deps) {
    const page = latestPage(deps, params, true);
    return withContext(deps, page.then((p) => ({ items: p.items.map(signatureInfo), cursor: p.cursor })));
  },
};
