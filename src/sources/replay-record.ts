/** One record of a recorded file, as decoded (shared by the replay source and its decoding workers). */
import type { AccountUpdate, Block, NormalizedTx } from '../core/model.js';

export type ReplayRecord =
  | { kind: 'tx'; tx: NormalizedTx }
  | { kind: 'block'; block: Block }
  | { kind: 'account'; account: AccountUpdate };
