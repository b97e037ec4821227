/**
 * Tree rollovers: account compression instructions that retire a nearly full tree (and its queue) and initialise a
 * new pair with the same parameters. Photon learns new trees by syncing tree accounts; an indexer reading
 * transactions can learn them here. Account order from the Anchor contexts in light-protocol
 * `programs/account-compression/src/instructions/rollover_*.rs`:
 * - V1 state / address: fee payer, authority, registered program, new tree, new queue, old tree, old queue;
 * - V2 state: fee payer, authority, registered program, new tree, old tree, new output queue, old output queue;
 * - V2 address: fee payer, authority, registered program, new tree, old tree (the tree is its own queue).
 */
import type { TracedInstruction } from '../events.js';
import { ACCOUNT_COMPRESSION_IX, ACCOUNT_COMPRESSION_PROGRAM, hasDiscriminator } from './programs.js';
import { LIGHT_TREE_TYPE, type LightTreeRollover } from './types.js';

/** The rollover an instruction performs, null when it is not a rollover. Throws when it has too few accounts. */
export function parseRollover(ix: TracedInstruction): LightTreeRollover | null {
  if (ix.programId !== ACCOUNT_COMPRESSION_PROGRAM) return null;
  const a = ix.accounts;
  const need = (n: number) => {
    if (a.length < n) throw new Error(`rollover instruction has ${a.length} accounts, needs ${n}`);
  };
  if (hasDiscriminator(ix.data, ACCOUNT_COMPRESSION_IX.rolloverStateMerkleTreeAndNullifierQueue)) {
    need(7);
    return { treeType: LIGHT_TREE_TYPE.StateV1, newTree: a[3], newQueue: a[4], oldTree: a[5], oldQueue: a[6], path: ix.path };
  }
  if (hasDiscriminator(ix.data, ACCOUNT_COMPRESSION_IX.rolloverAddressMerkleTreeAndQueue)) {
    need(7);
    return { treeType: LIGHT_TREE_TYPE.AddressV1, newTree: a[3], newQueue: a[4], oldTree: a[5], oldQueue: a[6], path: ix.path };
  }
  if (hasDiscriminator(ix.data, ACCOUNT_COMPRESSION_IX.rolloverBatchedStateMerkleTree)) {
    need(7);
    return { treeType: LIGHT_TREE_TYPE.StateV2, newTree: a[3], oldTree: a[4], newQueue: a[5], oldQueue: a[6], path: ix.path };
  }
  if (hasDiscriminator(ix.data, ACCOUNT_COMPRESSION_IX.rolloverBatchedAddressMerkleTree)) {
    need(5);
    return { treeType: LIGHT_TREE_TYPE.AddressV2, newTree: a[3], oldTree: a[4], newQueue: a[3], oldQueue: a[4], path: ix.path };
  }
  return null;
}
