/**
 * getQueueInfo (helius-labs/photon src/api/method/get_queue_info.rs): the pending entries of every V2 (batched)
 * tree's queues — input (type 3) and output (type 5) queues of state trees, the address queue (type 4) of address
 * trees — optionally only for `trees`. The result carries `slot` instead of a context wrapper.
 */
import type { ApiDeps } from '../deps.js';
import { isAddress } from '../../core/encoding.js';
import { getQueueLengths } from '../../store/zk/queues.js';
import { getTrees, listTrees } from '../../store/zk/trees.js';
import { TREE_TYPE } from '../../store/zk/types.js';
import { indexedSlot } from './context.js';
import { paramsError, validationError } from './errors.js';
import { schemaParams } from './params.js';
import { PUBKEY, byNameParams, nullable } from '../rpc/params-schema.js';

/** Light's `QueueType` codes. */
export const QUEUE_TYPE = { InputStateV2: 3, AddressV2: 4, OutputStateV2: 5 } as const;

/** getQueueInfo params: optionally the trees to report (params may be omitted). */
export const QUEUE_INFO_PARAMS = byNameParams({
  trees: nullable({ type: 'array', items: PUBKEY, maxItems: 1000, description: 'only these trees (default: every V2 tree)' }),
});

export async function queueInfo(deps: ApiDeps, params: unknown): Promise<Record<string, unknown>> {
  const p = schemaParams(params, QUEUE_INFO_PARAMS);
  let filter: string[] | null = null;
  if (p.trees !== undefined && p.trees !== null) {
    if (!Array.isArray(p.trees)) throw paramsError('`trees`: invalid type, expected an array of strings');
    if (p.trees.length > 1000) throw validationError(`Too many trees requested ${p.trees.length}. Maximum allowed: 1000`);
    filter = p.trees.map((t, i) => {
      if (typeof t !== 'string') throw paramsError(`\`trees[${i}]\`: invalid type, expected a string`);
      if (!isAddress(t)) throw validationError(`Invalid pubkey: ${(t as string).slice(0, 100)}`);
      return t;
    });
  }
  const trees = filter ? [...(await getTrees(deps.db, filter)).values()] : await listTrees(deps.db);
  const batched = trees.filter((t) => t.treeType === TREE_TYPE.StateV2 || t.treeType === TREE_TYPE.AddressV2).sort((a, b) => (a.tree < b.tree ? -1 : a.tree > b.tree ? 1 : 0));
  const [slot, lengths] = await Promise.all([indexedSlot(deps), Promise.all(batched.map((t) => getQueueLengths(deps.db, t.tree)))]);
  const queues = batched.flatMap((t, i): { tree: string; queue: string; queueType: number; queueSize: number }[] => {
    const n = lengths[i];
    return t.treeType === TREE_TYPE.StateV2
      ? [
          { tree: t.tree, queue: t.queue, queueType: QUEUE_TYPE.InputStateV2, queueSize: n.input },
          { tree: t.tree, queue: t.queue, queueType: QUEUE_TYPE.OutputStateV2, queueSize: n.output },
        ]
      : [{ tree: t.tree, queue: t.queue, queueType: QUEUE_TYPE.AddressV2, queueSize: n.address }];
  });
  return { queues, slot };
}
