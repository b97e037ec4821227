/**
 * getIndexerHealth: `"ok"`, or Photon's `Node is behind N slots` (-32000) when the indexed slot is more than
 * `zk.maxLagSlots` (default 20) behind the cluster tip. The tip comes from the live ingester; a process that does
 * not ingest from a cluster has no tip to compare with and answers ok.
 */
import { SolgateError } from '../../../../core/errors.js';
import { indexedSlot } from '../../../zk/context.js';
import { DEFAULT_MAX_LAG_SLOTS, zkDeps } from '../../../zk/deps.js';
import type { RpcMethod } from '../../method.js';
import { NO_PARAMS } from '../../params-schema.js';

export const getIndexerHealth: RpcMethod = {
  name: 'getIndexerHealth',
  credits: 10,
  paramsSchema: NO_PARAMS,
  async handler(_params, deps) {
    const tip = deps.ingestStatus?.().tip ?? null;
    if (tip === null) return 'ok';
    const behind = tip - (await indexedSlot(deps));
    if (behind > (zkDeps(deps).maxLagSlots ?? DEFAULT_MAX_LAG_SLOTS)) throw new SolgateError('INVALID_ARGUMENT', `Node is behind ${behind} slots`);
    return 'ok';
  },
};
