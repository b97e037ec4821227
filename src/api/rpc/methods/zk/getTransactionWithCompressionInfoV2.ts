/** getTransactionWithCompressionInfoV2: the V2 form (AccountV2; closed accounts with nullifier and tx hash). */
import { objectParams, required, signature } from '../../../zk/params.js';
import { transactionWithCompressionInfoV2 } from '../../../zk/transaction-info.js';
import type { RpcMethod } from '../../method.js';
import { SIGNATURE, byNameParams, paramNames } from '../../params-schema.js';

/** The by-name params (the accepted names come from here; /docs/openrpc.json describes them). */
export const paramsSchema = byNameParams({ signature: SIGNATURE }, ['signature']);


export const getTransactionWithCompressionInfoV2: RpcMethod = {
  name: 'getTransactionWithCompressionInfoV2',
  credits: 10,
  paramsSchema,
  async handler(params, deps) {
    const p = objectParams(params, paramNames(paramsSchema));
    return transactionWithCompressionInfoV2(deps, signature(required(p, 'signature'), 'signature'));
  },
};
