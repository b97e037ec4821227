/** getQueueInfo: queue sizes of every V2 tree (or of `trees`), with the indexed slot. */
import { queueInfo } from '../../../zk/queue-info.js';
import type { RpcMethod } from '../../method.js';

export const getQueueInfo: RpcMethod = {
  name: 'getQueueInfo',
  credits: 10,
  async handler(params, deps) {
    return queueInfo(deps, params);
  },
};
