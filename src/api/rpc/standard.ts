/**
 * The standard Solana JSON-RPC methods (agave's, deprecated names included, which older clients still send) that the
 * gateway forwards to the cluster RPC on the same path as DAS and ZK Compression, with their meter calls
 * (compat-facts-rpc §7): 1 credit per call; 10 for getProgramAccounts and the archival calls (and
 * getSignatureStatuses with `searchTransactionHistory`); getProgramAccounts and sendTransaction in their own
 * rate-limit buckets. Batches carry at most 100 getTransaction calls and 10 of each other archival method.
 */
import type { Call } from '../../accounts/meter.js';

const ARCHIVAL = ['getBlock', 'getBlocks', 'getBlocksWithLimit', 'getSignaturesForAddress', 'getTransaction', 'getBlockTime', 'getInflationReward',
  'getConfirmedBlock', 'getConfirmedBlocks', 'getConfirmedBlocksWithLimit', 'getConfirmedSignaturesForAddress2', 'getConfirmedTransaction'] as const;

const OTHERS = [
  'getAccountInfo', 'getBalance', 'getBlockCommitment', 'getBlockHeight', 'getBlockProduction', 'getClusterNodes', 'getEpochInfo',
  'getEpochSchedule', 'getFeeForMessage', 'getFirstAvailableBlock', 'getGenesisHash', 'getHealth', 'getHighestSnapshotSlot', 'getIdentity',
  'getInflationGovernor', 'getInflationRate', 'getLargestAccounts', 'getLatestBlockhash', 'getLeaderSchedule', 'getMaxRetransmitSlot',
  'getMaxShredInsertSlot', 'getMinimumBalanceForRentExemption', 'getMultipleAccounts', 'getRecentPerformanceSamples',
  'getRecentPrioritizationFees', 'getSignatureStatuses', 'getSlot', 'getSlotLeader', 'getSlotLeaders', 'getStakeActivation',
  'getStakeMinimumDelegation', 'getSupply', 'getTokenAccountBalance', 'getTokenAccountsByDelegate', 'getTokenAccountsByOwner',
  'getTokenLargestAccounts', 'getTokenSupply', 'getTransactionCount', 'getVersion', 'getVoteAccounts', 'isBlockhashValid', 'minimumLedgerSlot',
  'requestAirdrop', 'simulateTransaction',
  // deprecated, still answered by many nodes
  'getFeeCalculatorForBlockhash', 'getFeeRateGovernor', 'getFees', 'getRecentBlockhash', 'getSnapshotSlot',
] as const;

/** Every standard method name the gateway forwards. */
export const STANDARD_METHODS: ReadonlySet<string> = new Set<string>([...ARCHIVAL, ...OTHERS, 'getProgramAccounts', 'sendTransaction']);

const ARCHIVAL_SET: ReadonlySet<string> = new Set<string>(ARCHIVAL);

/** Methods whose call may be sent again after a failure without effect on the chain (all but the writing ones). */
export const isIdempotent = (method: string): boolean => method !== 'sendTransaction' && method !== 'requestAirdrop';

/** The meter's call for a standard request (its params decide getSignatureStatuses' cost). */
export function standardCall(method: string, params: unknown): Call {
  if (method === 'getProgramAccounts') return { bucket: 'getProgramAccounts', cost: 'rpcHeavy', method };
  if (method === 'sendTransaction') return { bucket: 'sendTransaction', cost: 'rpc', method };
  if (ARCHIVAL_SET.has(method)) return { bucket: 'rpc', cost: 'rpcHeavy', method };
  if (method === 'getSignatureStatuses' && Array.isArray(params) && (params[1] as { searchTransactionHistory?: unknown } | undefined)?.searchTransactionHistory === true)
    return { bucket: 'rpc', cost: 'rpcHeavy', method };
  return { bucket: 'rpc', cost: 'rpc', method };
}

/** The archival calls a batch may carry per method (compat-facts-rpc §7); null = no cap. */
export function batchCap(method: string): number | null {
  if (method === 'getTransaction' || method === 'getConfirmedTransaction') return 100;
  return ARCHIVAL_SET.has(method) ? 10 : null;
}
