/** getQueueElements: the pending entries of a V2 tree's output, input or address queue with their proofs (forester). */
import { QUEUE_ELEMENTS_PARAMS, queueElements } from '../../../zk/queue-elements.js';
import type { RpcMethod } from '../../method.js';

export const getQueueElements: RpcMethod = {
  name: 'getQueueElements',
  credits: 10,
  paramsSchema: QUEUE_ELEMENTS_PARAMS,
  async handler(params, deps) {
    return queueElements(deps, params);
  },
};
