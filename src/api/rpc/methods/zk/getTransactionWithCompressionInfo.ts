/**
 * getTransactionWithCompressionInfo: `{transaction, compressionInfo: {closedAccounts, openedAccounts}}` (no context)
 * for `signature`. The transaction comes from the cluster when a fetcher is configured, else from stored facts
 * (see src/api/zk/transaction-info.ts).
 */
import { objectParams, required, signature } from '../../../zk/params.js';
import { transactionWithCompressionInfo } from '../../../zk/transaction-info.js';
import type { RpcMethod } from '../../method.js';
import { SIGNATURE, byNameParams, paramNames } from '../../params-schema.js';

/** The by-name params (the accepted names come from here; /docs/openrpc.json describes them). */
export const paramsSchema = byNameParams({ signature: SIGNATURE }, ['signature']);


export const getTransactionWithCompressionInfo: RpcMethod = {
  name: 'getTransactionWithCompressionInfo',
  credits: 10,
  paramsSchema,
  async handler(params, deps) {
    const p = objectParams(params, paramNames(paramsSchema));
    return transactionWithCompressionInfo(deps, signature(required(p, 'signature'), 'signature'));
  },
};
