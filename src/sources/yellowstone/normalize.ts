/**
 * A Yellowstone (Geyser gRPC) block update as the normalised `Block` — the same value `normalizeRpcBlock` makes
 * of the cluster's `getBlock` for that slot (tests compare the two on the recorded mainnet block and on the
 * localnet), so both sources fill the same tables with the same rows.
 *
 * Pure apart from the transaction error: the plugin sends it bincode-encoded, and the Yellowstone client's own
 * decoder (agave's types, in Rust) turns it into the JSON-RPC form the parsers read. Votes (every instruction
 * invokes the Vote program) are left out before any further decoding, keeping their neighbours' block positions.
 */
import { txErrDecode } from '@triton-one/yellowstone-grpc';
import type { SubscribeUpdateBlock, SubscribeUpdateTransactionInfo } from '@triton-one/yellowstone-grpc';
import type { Block, CompiledInstruction, NormalizedTx, TokenBalance } from '../../core/model.js';
import { VOTE_PROGRAM } from '../../core/programs.js';
import { bytesToBase58 } from '../../core/encoding.js';
import { checkIndexes, labelled } from '../normalize-parts.js';
import { FieldError } from '../fields.js';

type GeyserTokenBalance = NonNullable<SubscribeUpdateTransactionInfo['meta']>['preTokenBalances'][number];

/** Base58 of 64 zero bytes: an unsigned slot of a partially signed transaction (as `normalizeRpcBlock`). */
const ZERO_SIGNATURE = '1'.repeat(64);

const u64 = (s: string | undefined, p: string): bigint => {
  if (s === undefined || !/^\d+$/.test(s)) throw new FieldError(p, `must be an unsigned integer, got ${JSON.stringify(s)}`);
  return BigInt(s);
};
const num = (s: string | undefined, p: string): number => {
  const n = Number(s);
  if (!Number.isSafeInteger(n) || n < 0) throw new FieldError(p, `must be a slot-sized unsigned integer, got ${JSON.stringify(s)}`);
  return n;
};

function tokenBalances(list: GeyserTokenBalance[], p: string): TokenBalance[] {
  return list.map((b, i) => ({
    accountIndex: b.accountIndex,
    mint: b.mint,
    owner: b.owner === '' ? null : b.owner,
    programId: b.programId === '' ? null : b.programId,
    amount: u64(b.uiTokenAmount?.amount, `${p}[${i}].uiTokenAmount.amount`),
    decimals: b.uiTokenAmount?.decimals ?? 0,
  }));
}

/** True when every top-level instruction invokes the Vote program (the rule `normalizeRpcBlock` skips by). */
function isVoteOnly(info: SubscribeUpdateTransactionInfo): boolean {
  const m = info.transaction?.message;
  if (!m || m.instructions.length === 0) return false;
  return m.instructions.every((ix) => {
    const key = m.accountKeys[ix.programIdIndex];
    return key !== undefined && bytesToBase58(key) === VOTE_PROGRAM;
  });
}

/** One transaction of a block update; `null` for a vote. */
export function normalizeGeyserTransaction(info: SubscribeUpdateTransactionInfo, slot: number, blockTime: number | null): NormalizedTx | null {
  const p = `transactions[${info.index}]`;
  const t = info.transaction;
  const m = t?.message;
  if (!t || !m || !m.header) throw new FieldError(`${p}.transaction`, 'is missing its message');
  if (isVoteOnly(info)) return null;
  if (t.signatures.length === 0) throw new FieldError(`${p}.transaction.signatures`, 'must not be empty');
  const signatures = t.signatures.map((s) => (s.every((x) => x === 0) ? ZERO_SIGNATURE : bytesToBase58(s)));
  const meta = info.meta ?? null;
  const staticKeys = m.accountKeys.map(bytesToBase58);
  const accountKeys = [...staticKeys];
  const lookups = m.addressTableLookups.map((l) => ({
    accountKey: bytesToBase58(l.accountKey),
    writableIndexes: [...l.writableIndexes],
    readonlyIndexes: [...l.readonlyIndexes],
  }));
  if (meta) {
    const writable = lookups.reduce((s, l) => s + l.writableIndexes.length, 0);
    const readonly = lookups.reduce((s, l) => s + l.readonlyIndexes.length, 0);
    if (meta.loadedWritableAddresses.length !== writable || meta.loadedReadonlyAddresses.length !== readonly) {
      throw new FieldError(
        `${p}.meta.loadedAddresses`,
        `has ${meta.loadedWritableAddresses.length} writable/${meta.loadedReadonlyAddresses.length} readonly keys but the lookups select ${writable}/${readonly}`,
      );
    }
    for (const k of meta.loadedWritableAddresses) accountKeys.push(bytesToBase58(k));
    for (const k of meta.loadedReadonlyAddresses) accountKeys.push(bytesToBase58(k));
  } else if (lookups.length > 0) {
    throw new FieldError(`${p}.meta.loadedAddresses`, 'is required to resolve the address table lookups');
  }
  const instructions: CompiledInstruction[] = m.instructions.map((ix) => ({
    programIdIndex: ix.programIdIndex,
    accounts: [...ix.accounts],
    data: Uint8Array.from(ix.data),
    stackHeight: 1,
  }));
  const preBalances = (meta?.preBalances ?? []).map((b, i) => u64(b, `${p}.meta.preBalances[${i}]`));
  const postBalances = (meta?.postBalances ?? []).map((b, i) => u64(b, `${p}.meta.postBalances[${i}]`));
  if (meta) {
    for (const [name, list] of [['preBalances', preBalances], ['postBalances', postBalances]] as const) {
      if (list.length !== accountKeys.length) throw new FieldError(`${p}.meta.${name}`, `has ${list.length} entries for ${accountKeys.length} account keys`);
    }
  }
  const tx: NormalizedTx = {
    signature: signatures[0],
    signatures,
    slot,
    indexInBlock: num(info.index, `${p}.index`),
    blockTime,
    version: m.versioned ? 0 : 'legacy',
    accountKeys,
    staticKeyCount: staticKeys.length,
    header: {
      numRequiredSignatures: m.header.numRequiredSignatures,
      numReadonlySignedAccounts: m.header.numReadonlySignedAccounts,
      numReadonlyUnsignedAccounts: m.header.numReadonlyUnsignedAccounts,
    },
    recentBlockhash: bytesToBase58(m.recentBlockhash),
    addressTableLookups: lookups,
    instructions,
    innerInstructions: (meta?.innerInstructions ?? []).map((g) => ({
      index: g.index,
      instructions: g.instructions.map((ix) => ({
        programIdIndex: ix.programIdIndex,
        accounts: [...ix.accounts],
        data: Uint8Array.from(ix.data),
        stackHeight: ix.stackHeight ? ix.stackHeight : null,
      })),
    })),
    logMessages: meta && !meta.logMessagesNone ? [...meta.logMessages] : null,
    meta: meta && {
      err: meta.err && meta.err.err.length ? txErrDecode.decode(meta.err.err) : null,
      fee: u64(meta.fee, `${p}.meta.fee`),
      preBalances,
      postBalances,
      preTokenBalances: tokenBalances(meta.preTokenBalances, `${p}.meta.preTokenBalances`),
      postTokenBalances: tokenBalances(meta.postTokenBalances, `${p}.meta.postTokenBalances`),
      computeUnitsConsumed: meta.computeUnitsConsumed === undefined ? null : u64(meta.computeUnitsConsumed, `${p}.meta.computeUnitsConsumed`),
    },
    isVote: false,
  };
  checkIndexes(tx, `${p}.`);
  return tx;
}

/** A block update as the normalised block (votes left out, the others in block order). */
export function normalizeGeyserBlock(b: SubscribeUpdateBlock): Block {
  const slot = num(b.slot, 'slot');
  return labelled(`geyser block (slot ${slot})`, () => {
    const blockTime = b.blockTime ? Number(b.blockTime.timestamp) : null;
    const ordered = [...b.transactions].sort((x, y) => Number(x.index) - Number(y.index));
    return {
      slot,
      parentSlot: num(b.parentSlot, 'parentSlot'),
      blockhash: b.blockhash || null,
      previousBlockhash: b.parentBlockhash || null,
      blockTime,
      blockHeight: b.blockHeight ? num(b.blockHeight.blockHeight, 'blockHeight') : null,
      transactions: ordered.flatMap((t) => {
        const tx = normalizeGeyserTransaction(t, slot, blockTime);
        return tx ? [tx] : [];
      }),
    };
  });
}
