/**
 * The newer event form: light system programs that no longer log a `PublicTransactionEvent` through the noop program.
 * The event is pieced together from two instructions of one instruction group (an outer instruction and its CPIs):
 * the executing light system program instruction (`invoke`, `invoke_cpi`, `invoke_cpi_with_read_only`,
 * `invoke_cpi_with_account_info`) and the account compression `insert_into_queues` it invoked.
 *
 * A port of light-protocol `sdk-libs/event/src/parse.rs` (`event_from_light_transaction`), which Photon calls from
 * `tx_event_parser_v2.rs`:
 * 0. classify each instruction (too-short data, CPI-context-account creation and foreign `insert_into_queues` calls
 *    count as unknown, so they cannot complete a pattern);
 * 1. find the patterns `LightSystem, [SolanaSystem]+, AccountCompression(insert_into_queues)` searching backwards (one
 *    executing system instruction, possibly preceded by CPI-context writes, then at least one SOL transfer);
 * 2. decode both instructions; 3. build one event per pattern.
 * Not ported: the ATA-owner extraction for `Transfer2` of the light token program (compressed ATAs).
 */
import type { Address } from '../../core/model.js';
import type { TracedInstruction } from '../events.js';
import {
  invokeCpiDecoder,
  invokeCpiWithAccountInfoDecoder,
  invokeCpiWithReadOnlyDecoder,
  invokeDecoder,
  insertIntoQueuesDecoder,
  plain,
  readAt,
  type RawInsertIntoQueues,
  type RawOutputAccount,
} from './codecs.js';
import type { BatchInput, BatchTxEvent } from './events.js';
import {
  ACCOUNT_COMPRESSION_IX,
  ACCOUNT_COMPRESSION_PROGRAM,
  hasDiscriminator,
  LIGHT_SYSTEM_PROGRAM,
  REGISTERED_PROGRAM_PDA,
  SOLANA_SYSTEM_PROGRAM,
  SYSTEM_IX,
} from './programs.js';

type Kind = 'lightSystem' | 'accountCompression' | 'solanaSystem' | 'unknown';

const DEFAULT_PUBKEY = SOLANA_SYSTEM_PROGRAM; // Pubkey::default() in base58

/** Step 0 (`wrap_program_ids`). */
function classify(ix: TracedInstruction): Kind {
  if (ix.data.length < 12) return 'unknown';
  if (ix.programId === SOLANA_SYSTEM_PROGRAM) return 'solanaSystem';
  if (ix.programId === LIGHT_SYSTEM_PROGRAM) {
    return hasDiscriminator(ix.data, SYSTEM_IX.createCpiContextAccount) ? 'unknown' : 'lightSystem';
  }
  if (ix.programId === ACCOUNT_COMPRESSION_PROGRAM) {
    return hasDiscriminator(ix.data, ACCOUNT_COMPRESSION_IX.insertIntoQueues) &&
      ix.accounts.length > 2 &&
      ix.accounts[1] === REGISTERED_PROGRAM_PDA
      ? 'accountCompression'
      : 'unknown';
  }
  return 'unknown';
}

interface Pattern {
  system: number;
  insertIntoQueues: number;
}

/** `find_cpi_pattern`: from the `insert_into_queues` at `start`, backwards. Returns the pattern and where it stopped. */
function findPattern(start: number, kinds: readonly Kind[]): [Pattern | null, number] {
  let foundSol = false;
  let system = -1;
  for (let i = start - 1; i >= 0; i--) {
    const k = kinds[i];
    if (k === 'solanaSystem') {
      foundSol = true;
      continue;
    }
    if (k === 'lightSystem' && foundSol && system < 0) system = i;
    else if (system >= 0 && k === 'lightSystem') {
      // an earlier light system instruction writing to the CPI context: part of this transaction
    } else if (k === 'accountCompression' && system >= 0) return [{ system, insertIntoQueues: start }, i];
    else if (system < 0) return [null, i];
  }
  return [system >= 0 ? { system, insertIntoQueues: start } : null, 0];
}

/** `find_cpi_patterns`: every pattern of the group, in execution order. */
function findPatterns(kinds: readonly Kind[]): Pattern[] {
  const out: Pattern[] = [];
  let next = Number.MAX_SAFE_INTEGER;
  for (let i = kinds.length - 1; i >= 0; i--) {
    if (i > next) continue;
    if (kinds[i] === 'accountCompression') {
      const [p, stop] = findPattern(i, kinds);
      next = stop;
      if (p) out.push(p);
    }
  }
  return out.reverse();
}

/** The executing system instruction: its outputs, the accounts after the system accounts, and its input trees. */
interface ExecutingInstruction {
  outputs: RawOutputAccount[];
  accounts: Address[];
}

function decodeSystemInstruction(ix: TracedInstruction): ExecutingInstruction {
  const data = ix.data;
  const need = (n: number) => {
    if (ix.accounts.length < n) throw new Error(`light system instruction has ${ix.accounts.length} accounts, needs ${n}`);
  };
  if (hasDiscriminator(data, SYSTEM_IX.invoke)) {
    need(9);
    // Anchor argument `inputs: Vec<u8>`: skip its 4-byte length.
    const [d] = readAt(invokeDecoder, data, 12);
    return { outputs: d.outputs, accounts: ix.accounts.slice(9) };
  }
  if (hasDiscriminator(data, SYSTEM_IX.invokeCpi)) {
    need(11);
    const [d] = readAt(invokeCpiDecoder, data, 12);
    return { outputs: d.outputs, accounts: ix.accounts.slice(11) };
  }
  if (hasDiscriminator(data, SYSTEM_IX.invokeCpiWithReadOnly)) {
    need(5);
    const [d] = readAt(invokeCpiWithReadOnlyDecoder, data, 8);
    const skip = systemAccountsLen(d);
    need(skip);
    return { outputs: d.outputs, accounts: ix.accounts.slice(skip) };
  }
  if (hasDiscriminator(data, SYSTEM_IX.invokeCpiWithAccountInfo)) {
    need(5);
    const [d] = readAt(invokeCpiWithAccountInfoDecoder, data, 8);
    const skip = systemAccountsLen(d);
    need(skip);
    const outputs: RawOutputAccount[] = [];
    for (const info of d.accountInfos) {
      if (!info.output) continue;
      const o = info.output;
      outputs.push({
        compressedAccount: {
          owner: d.invokingProgramId,
          lamports: o.lamports,
          address: info.address,
          data: { discriminator: o.discriminator, data: o.data, dataHash: o.dataHash },
        },
        merkleTreeIndex: o.outputMerkleTreeIndex,
      });
    }
    return { outputs, accounts: ix.accounts.slice(skip) };
  }
  throw new Error(`not an executing light system instruction (discriminator ${Buffer.from(data.subarray(0, 8)).toString('hex')})`);
}

/**
 * Accounts before the packed (tree/queue) accounts of the small instructions: 11 in mode 0 (Anchor accounts), else
 * fee payer, authority, registered program, account compression program and authority, system program, then the
 * sol pool PDA / decompression recipient / CPI context account when used.
 */
function systemAccountsLen(d: { mode: number; compressOrDecompressLamports: bigint; isCompress: boolean; withCpiContext: boolean }): number {
  if (d.mode === 0) return 11;
  let n = 6;
  if (d.compressOrDecompressLamports > 0n) n++;
  if (!d.isCompress && d.compressOrDecompressLamports > 0n) n++;
  if (d.withCpiContext) n++;
  return n;
}

function decodeInsertIntoQueues(ix: TracedInstruction): RawInsertIntoQueues {
  if (ix.data.length < 12) throw new Error(`insert_into_queues data has ${ix.data.length} bytes, needs 12`);
  // discriminator, then the Anchor `bytes: Vec<u8>` length, then the zero-copy payload.
  return readAt(insertIntoQueuesDecoder, ix.data, 12)[0];
}

const isEmptySeq = (s: { treePubkey: string }) => s.treePubkey === DEFAULT_PUBKEY;

function eventOf(exec: ExecutingInstruction, q: RawInsertIntoQueues, queueAccounts: readonly Address[]): BatchTxEvent {
  const at = (i: number, what: string): Address => {
    const a = queueAccounts[i];
    if (a === undefined) throw new Error(`insert_into_queues ${what} index ${i} outside its ${queueAccounts.length} tree accounts`);
    return a;
  };
  const inputSeq = q.inputSequenceNumbers.filter((s) => !isEmptySeq(s));
  const inputTrees = new Set(inputSeq.map((s) => s.treePubkey as string));
  const batchInputs: BatchInput[] = [];
  for (const n of q.nullifiers) {
    const tree = at(n.treeIndex, 'nullifier tree');
    if (!inputTrees.has(tree)) continue;
    batchInputs.push({ accountHash: plain(n.accountHash), leafIndex: n.leafIndex, proveByIndex: n.proveByIndex === 1, tree, queueIndex: null });
  }
  // Queue positions: each batched tree's input sequence number is the queue index of its first input; later inputs of
  // the same tree follow (create_nullifier_queue_indices).
  for (const s of q.inputSequenceNumbers) {
    let next = s.seq;
    for (const b of batchInputs) {
      if (b.tree === s.treePubkey) b.queueIndex = next++;
    }
  }
  const newAddresses = q.addresses.map((a) => ({
    address: plain(a.address),
    tree: at(a.treeIndex, 'address tree'),
    queue: at(a.queueIndex, 'address queue'),
    queueIndex: null as bigint | null,
  }));
  for (const s of q.addressSequenceNumbers) {
    let next = s.seq;
    for (const a of newAddresses) {
      if (a.tree === s.treePubkey) a.queueIndex = next++;
    }
  }
  return {
    event: {
      inputHashes: q.nullifiers.map((n) => plain(n.accountHash)),
      outputHashes: q.leaves.map((l) => plain(l.leaf)),
      outputAccounts: [...q.cpiContextOutputs, ...exec.outputs],
      outputLeafIndices: [...q.outputLeafIndices],
      sequenceNumbers: q.outputSequenceNumbers.filter((s) => !isEmptySeq(s)).map((s) => ({ treePubkey: s.treePubkey, seq: s.seq })),
      pubkeyArray: exec.accounts,
      ataOwners: [],
    },
    txHash: plain(q.txHash),
    newAddresses,
    batchInputs,
  };
}

/** Outcome for one instruction group: no pattern, the events, or why a pattern did not decode. */
export type GroupEvents =
  | { kind: 'none' }
  | { kind: 'events'; events: { event: BatchTxEvent; at: TracedInstruction }[] }
  | { kind: 'failed'; at: TracedInstruction; reason: string };

/** The instruction-data events of one instruction group (outer instruction first, then its CPIs in order). */
export function eventsFromInstructionGroup(group: readonly TracedInstruction[]): GroupEvents {
  const patterns = findPatterns(group.map(classify));
  if (patterns.length === 0) return { kind: 'none' };
  const events: { event: BatchTxEvent; at: TracedInstruction }[] = [];
  for (const p of patterns) {
    const queueIx = group[p.insertIntoQueues];
    const systemIx = group[p.system];
    try {
      const q = decodeInsertIntoQueues(queueIx);
      const exec = decodeSystemInstruction(systemIx);
      events.push({ event: eventOf(exec, q, queueIx.accounts.slice(2)), at: queueIx });
    } catch (e) {
      return { kind: 'failed', at: queueIx, reason: e instanceof Error ? e.message : String(e) };
    }
  }
  return { kind: 'events', events };
}
