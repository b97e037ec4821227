/** getIndexerSlot: the highest slot fully indexed (Photon interface; result is a bare integer, no context). */
import { getCheckpoint } from '../../../store/chain.js';
import type { RpcMethod } from '../method.js';
import { NO_PARAMS } from '../params-schema.js';

export const getIndexerSlot: RpcMethod = {
  name: 'getIndexerSlot',
  credits: 10,
  paramsSchema: NO_PARAMS,
  async handler(_params, deps) {
    return (await getCheckpoint(deps.db)) ?? 0;
  },
};
