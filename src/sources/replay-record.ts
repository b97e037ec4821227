/** One record of a recorded file, as decoded (shared by the replay source and its decoding workers). */
import type { AccountUpdate, Block, NormalizedTx } from '../core/model.js';
import type { PackedBlock } from './block-pack.js';

export type ReplayRecord =
  | { kind: 'tx'; tx: NormalizedTx }
  | { kind: 'block'; block: Block }
  | { kind: 'account'; account: AccountUpdate };

/** A record as a decoding worker posts it: a block packed (unless it could not be), the others as they are. */
export type PostedRecord = ReplayRecord | { kind: 'packed-block'; packed: PackedBlock };
