/** getQueueInfo: queue sizes of every V2 tree (or of `trees`), with the indexed slot. */
import { QUEUE_INFO_PARAMS, queueInfo } from '../../../zk/queue-info.js';
import type { RpcMethod } from '../../method.js';

export const getQueueInfo: RpcMethod = {
  name: 'getQueueInfo',
  credits: 10,
  paramsSchema: QUEUE_INFO_PARAMS,
  async handler(params, deps) {
    return queueInfo(deps, params);
  },
};
