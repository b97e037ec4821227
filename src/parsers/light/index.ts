/**
 * ZK Compression (Light Protocol) transaction parser: one transaction → its compression state update, with Photon's
 * semantics (helius-labs/photon `src/ingester/parser/mod.rs` `parse_transaction`, `tx_event_parser.rs`,
 * `tx_event_parser_v2.rs`, `merkle_tree_events_parser.rs`).
 *
 * Per instruction group (an outer instruction and the CPIs it made, in order):
 * 1. the newer event form — an executing light system program instruction and the account compression
 *    `insert_into_queues` it invoked (`instruction-events.ts`); when the group has one, the older form is not looked for;
 * 2. otherwise the older form — a `PublicTransactionEvent` logged through the noop program after an account
 *    compression instruction and one or two SOL transfers (`noop-events.ts`);
 * 3. in every group, `MerkleTreeEvent`s logged by the account compression program right before a noop call (V1
 *    nullifications and address-tree updates, V2 batch append / nullify / address append), and tree rollovers.
 * Each event's outputs are placed with the tree lookup: V1 state outputs take the tree's sequence number from the
 * event (+1 per further output of that tree), V2 outputs wait in the output queue (`inOutputQueue`).
 *
 * Pure and synchronous; never throws. A failed transaction (`meta.err` set) changed nothing and yields an empty update
 * without a transaction row, as Photon skips it. Undecodable Light data yields `parse.failed` entries in `failures`
 * (Photon would reject the whole transaction or skip silently) and parsing goes on with the rest.
 *
 * This module holds the entry point and the public surface; the per-group steps above are in `groups.ts`, and
 * `update-builder.ts` turns the events into the update's rows.
 */
import type { Address, NormalizedTx } from '../../core/model.js';
import { walkTransaction } from '../walk.js';
import type { IxPath, TracedInstruction } from '../events.js';
import { groupsOf, parseGroup } from './groups.js';
import { LIGHT_PROGRAMS, VOTE_PROGRAM } from './programs.js';
import { UpdateBuilder } from './update-builder.js';
import type { LightParseOptions, LightStateUpdate, LightTreeInfo, LightTreeLookup } from './types.js';

export * from './types.js';
export {
  ACCOUNT_COMPRESSION_PROGRAM,
  COMPRESSED_TOKEN_PROGRAM,
  LIGHT_PROGRAMS,
  LIGHT_REGISTRY_PROGRAM,
  LIGHT_SYSTEM_PROGRAM,
  NOOP_PROGRAM,
} from './programs.js';
export { parseTokenData, isTokenAccount } from './token-data.js';

/**
 * A tree lookup over known trees, answering for each tree's own key and its queue's (Photon's tree metadata table
 * read by tree or queue). A V2 address tree's queue is the tree itself.
 */
export function treeLookupFrom(trees: Iterable<LightTreeInfo>): LightTreeLookup {
  const byKey = new Map<Address, LightTreeInfo>();
  for (const t of trees) {
    byKey.set(t.queue, t);
    byKey.set(t.tree, t);
  }
  return (pubkey) => byKey.get(pubkey);
}

/** A vote transaction gets no transaction row unless it used compression (Photon skips votes). */
function isVoteTransaction(tx: NormalizedTx, ixs: readonly TracedInstruction[]): boolean {
  return tx.isVote || ixs.some((ix) => ix.path.inner === null && ix.programId === VOTE_PROGRAM);
}

/**
 * The ZK Compression state update of `tx`. Pass the known trees (`opts.trees`, e.g. `treeLookupFrom(rows)`) so outputs
 * can be placed; outputs in unknown trees are left out and their tree listed in `unknownTrees`.
 */
export function parseLightTransaction(tx: NormalizedTx, opts: LightParseOptions = {}): LightStateUpdate {
  const b = new UpdateBuilder(tx, opts);
  if (tx.meta && tx.meta.err !== null && tx.meta.err !== undefined) return b.u;
  const ixs = walkTransaction(tx);
  for (const ix of ixs) if (ix.unresolved && LIGHT_PROGRAMS.has(ix.programId)) b.fail(ix, ix.unresolved);
  if (ixs.some((ix) => LIGHT_PROGRAMS.has(ix.programId))) {
    for (const group of groupsOf(ixs)) parseGroup(b, group);
  }
  if (!isVoteTransaction(tx, ixs) || b.compression) {
    const { signature, slot, blockTime } = tx;
    b.u.transaction = { signature, slot, blockTime, usesCompression: b.compression, error: null };
  }
  return b.u;
}

/** The path of the instruction an event came from (re-exported for callers that order rows by position). */
export type { IxPath };
