/** getTransactionWithCompressionInfoV2: the V2 form (AccountV2; closed accounts with nullifier and tx hash). */
import { objectParams, required, signature } from '../../../zk/params.js';
import { transactionWithCompressionInfoV2 } from '../../../zk/transaction-info.js';
import type { RpcMethod } from '../../method.js';

export const getTransactionWithCompressionInfoV2: RpcMethod = {
  name: 'getTransactionWithCompressionInfoV2',
  credits: 10,
  async handler(params, deps) {
    const p = objectParams(params, ['signature']);
    return transactionWithCompressionInfoV2(deps, signature(required(p, 'signature'), 'signature'));
  },
};
