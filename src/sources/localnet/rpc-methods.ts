/**
 * The Solana JSON-RPC methods served by the localnet, with the real wire shapes and error codes.
 * `commitment` is honoured as by agave (default finalized; `commitment.ts`): the slot, block height, blockhash,
 * blocks, transactions, signatures and account states of the newest block at that level, `context.slot` and
 * `minContextSlot` included; the block and history methods refuse `processed`.
 */
import type { LocalChain } from './chain.js';
import {
  blockJson, getTransactionJson, simulationJson, type AccountEncoding, type TransactionDetails,
} from './rpc-encode.js';
import { accountOpts, renderAccount } from './rpc-accounts.js';
import {
  RpcError, SOLANA_CORE_VERSION, accountEncodingOpt, addressParam, boolOpt, configParam, confirmedLevelOpt, context, invalidParam,
  invalidParams, levelOpt, maxVersionOpt, positional, requireParam, signatureParam, slotParam, txEncodingOpt, u64, unsupportedVersionError,
  wireParam,
} from './rpc-params.js';
import { TOKEN_METHODS } from './rpc-token-methods.js';
import { describeTxError } from './tx-error.js';
import type { LocalTx } from './types.js';
import { isAddress } from '../../core/encoding.js';

export type RpcHandler = (params: unknown[], chain: LocalChain) => unknown;

export { SOLANA_CORE_VERSION };
const MAX_SLOT_RANGE = 500_000;

function rejectV0(txs: LocalTx[], maxVersion: number | undefined): void {
  if (maxVersion === undefined && txs.some((t) => t.version === 0)) throw unsupportedVersionError();
}

function getBlock(p: unknown[], chain: LocalChain): unknown {
  const slot = slotParam(requireParam(p, 0, 'slot'));
  // Legacy form: the second param may be just the encoding string.
  const cfg = typeof p[1] === 'string' ? { encoding: p[1] } : configParam(p[1]);
  const encoding = txEncodingOpt(cfg.encoding, 'json');
  const details = (cfg.transactionDetails ?? 'full') as TransactionDetails;
  if (!['full', 'signatures', 'none', 'accounts'].includes(details)) throw invalidParams(`unknown transactionDetails ${String(details)}`);
  const rewards = boolOpt(cfg.rewards, true, 'rewards');
  const maxVersion = maxVersionOpt(cfg.maxSupportedTransactionVersion);
  // A block not yet at the asked level is not available yet, as one not yet produced.
  if (slot > chain.slotAt(confirmedLevelOpt(cfg))) throw new RpcError(-32004, `Block not available for slot ${slot}`);
  const block = chain.getBlock(slot);
  if (!block) {
    if (slot < chain.firstAvailableBlock) {
      throw new RpcError(-32001, `Block cleaned up, does not exist on node. First available block: ${chain.firstAvailableBlock}`);
    }
    throw new RpcError(-32007, `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`);
  }
  if (details === 'full' || details === 'accounts') rejectV0(block.transactions, maxVersion);
  return blockJson(block, { encoding, transactionDetails: details, rewards });
}

function getTransaction(p: unknown[], chain: LocalChain): unknown {
  const sig = signatureParam(requireParam(p, 0, 'signature'));
  const cfg = typeof p[1] === 'string' ? { encoding: p[1] } : configParam(p[1]);
  const encoding = txEncodingOpt(cfg.encoding, 'json');
  const maxVersion = maxVersionOpt(cfg.maxSupportedTransactionVersion);
  const level = confirmedLevelOpt(cfg);
  const tx = chain.getTransaction(sig);
  if (!tx || tx.slot > chain.slotAt(level)) return null;
  rejectV0([tx], maxVersion);
  return getTransactionJson(tx, encoding);
}

/** `[start_slot, end_slot?, config?]`: the blocks up to the newest one at the config's level (default finalized). */
function getBlocks(p: unknown[], chain: LocalChain): number[] {
  const start = slotParam(requireParam(p, 0, 'start_slot'), 'start_slot');
  const noEnd = p[1] === undefined || p[1] === null || typeof p[1] === 'object';
  const tip = chain.slotAt(confirmedLevelOpt(configParam(noEnd ? p[1] : p[2])));
  const end = noEnd ? tip : slotParam(p[1], 'end_slot');
  if (end - start > MAX_SLOT_RANGE) throw invalidParams(`Slot range too large; max ${MAX_SLOT_RANGE}`);
  return chain.getBlocks(start, Math.min(end, tip));
}

function getBlocksWithLimit(p: unknown[], chain: LocalChain): number[] {
  const start = slotParam(requireParam(p, 0, 'start_slot'), 'start_slot');
  const limit = slotParam(requireParam(p, 1, 'limit'), 'limit');
  if (limit > MAX_SLOT_RANGE) throw invalidParams(`Limit too large; max ${MAX_SLOT_RANGE}`);
  return chain.getBlocks(start, chain.slotAt(confirmedLevelOpt(configParam(p[2]))), limit);
}

function sendTransaction(p: unknown[], chain: LocalChain): string {
  const cfg = configParam(p[1]);
  const wire = wireParam(requireParam(p, 0, 'transaction'), cfg.encoding);
  let out;
  try {
    out = chain.sendTransaction(wire, { skipPreflight: boolOpt(cfg.skipPreflight, false, 'skipPreflight') });
  } catch (e) {
    throw new RpcError(-32602, `invalid transaction: ${(e as Error).message}`);
  }
  if (out.kind === 'preflight-failed') {
    const sim = out.simulation;
    throw new RpcError(-32002, `Transaction simulation failed: ${describeTxError(sim.err!)}`, simulationJson(sim, {
      innerInstructions: false, accounts: null, accountEncoding: 'base64',
    }));
  }
  if (out.kind === 'dropped' && out.err === 'SignatureFailure') {
    throw new RpcError(-32003, 'Transaction signature verification failure');
  }
  // A dropped transaction still returns its signature (it simply never lands), as on a real cluster.
  return out.signature;
}

function simulateTransaction(p: unknown[], chain: LocalChain): unknown {
  const cfg = configParam(p[1]);
  const wire = wireParam(requireParam(p, 0, 'transaction'), cfg.encoding);
  const sigVerify = boolOpt(cfg.sigVerify, false, 'sigVerify');
  const replaceRecentBlockhash = boolOpt(cfg.replaceRecentBlockhash, false, 'replaceRecentBlockhash');
  if (sigVerify && replaceRecentBlockhash) throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
  let sim;
  try {
    sim = chain.simulateTransaction(wire, { sigVerify, replaceRecentBlockhash });
  } catch (e) {
    throw new RpcError(-32602, `invalid transaction: ${(e as Error).message}`);
  }
  const acfg = cfg.accounts as { addresses?: unknown; encoding?: unknown } | undefined;
  let accounts = null;
  let accountEncoding: AccountEncoding = 'base64';
  if (acfg) {
    if (!Array.isArray(acfg.addresses) || !acfg.addresses.every(isAddress)) throw invalidParams('accounts.addresses must be addresses');
    accountEncoding = accountEncodingOpt(acfg.encoding ?? 'base64');
    if (accountEncoding === 'binary' || accountEncoding === 'base58') throw invalidParams('base58 encoding not supported for accounts');
    accounts = (acfg.addresses as string[]).map((a) => sim.postAccounts.get(a) ?? chain.getAccount(a));
  }
  const value = simulationJson(sim, { innerInstructions: boolOpt(cfg.innerInstructions, false, 'innerInstructions'), accounts, accountEncoding });
  return { context: context(chain, cfg), value };
}

/**
 * Newest first, strictly older than `before` and newer than `until` (any ledger signature; an unknown `before` gives
 * [], an unknown `until` no stop), over the whole ledger up to the newest block at the asked level (default
 * finalized), each with the level its block has reached; a commitment below `confirmed` is refused as by agave.
 */
function getSignaturesForAddress(p: unknown[], chain: LocalChain): unknown {
  const address = addressParam(requireParam(p, 0, 'address'));
  const cfg = configParam(p[1]);
  const limit = cfg.limit === undefined || cfg.limit === null ? 1000 : slotParam(cfg.limit, 'limit');
  const before = cfg.before === undefined || cfg.before === null ? undefined : signatureParam(cfg.before);
  const until = cfg.until === undefined || cfg.until === null ? undefined : signatureParam(cfg.until);
  if (limit < 1 || limit > 1000) throw invalidParam('Invalid limit; max 1000');
  const level = confirmedLevelOpt(cfg);
  context(chain, cfg, level);
  return chain.getSignaturesForAddress(address, { before, until, limit, maxSlot: chain.slotAt(level) }).map((tx) => ({
    blockTime: tx.blockTime, confirmationStatus: chain.levelOf(tx.slot), err: tx.meta.err, memo: tx.memo, signature: tx.signature, slot: tx.slot,
  }));
}

function getSignatureStatuses(p: unknown[], chain: LocalChain): unknown {
  const sigs = requireParam(p, 0, 'signatures');
  if (!Array.isArray(sigs)) throw invalidParams('invalid type: expected an array of signatures');
  if (sigs.length > 256) throw invalidParams('Too many inputs provided; max 256');
  const value = sigs.map((s) => {
    const tx = chain.getTransaction(signatureParam(s));
    if (!tx) return null;
    const err = tx.meta.err;
    const level = chain.levelOf(tx.slot);
    // agave: null once rooted, else how many blocks the cluster built on the transaction's block so far.
    const confirmations = level === 'finalized' ? null : chain.blocksAfter(tx.slot);
    return { confirmationStatus: level, confirmations, err, slot: tx.slot, status: err === null ? { Ok: null } : { Err: err } };
  });
  // Statuses are those of every produced block (the processed bank), whatever the commitment.
  return { context: context(chain, {}, 'processed'), value };
}

export const METHODS: Record<string, RpcHandler> = {
  getSlot: (p, c) => context(c, configParam(p[0])).slot,
  getBlockHeight: (p, c) => {
    const cfg = configParam(p[0]);
    context(c, cfg);
    return c.blockAt(levelOpt(cfg)).blockHeight;
  },
  getBlock,
  getBlocks,
  getBlocksWithLimit,
  getBlockTime: (p, c) => {
    const slot = slotParam(requireParam(p, 0, 'slot'));
    // agave answers from confirmed blocks.
    if (slot > c.slotAt('confirmed')) throw new RpcError(-32004, `Block not available for slot ${slot}`);
    const b = c.getBlock(slot);
    if (b) return b.blockTime;
    throw new RpcError(-32007, `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`);
  },
  getTransaction,
  sendTransaction,
  simulateTransaction,
  getAccountInfo: (p, c) => {
    const address = addressParam(requireParam(p, 0, 'address'));
    const cfg = configParam(p[1]);
    const o = accountOpts(cfg);
    const read = c.accountReader(levelOpt(cfg));
    return { context: context(c, cfg), value: renderAccount(read, read(address), o) };
  },
  getMultipleAccounts: (p, c) => {
    const addrs = requireParam(p, 0, 'addresses');
    if (!Array.isArray(addrs)) throw invalidParams('invalid type: expected an array of addresses');
    if (addrs.length > 100) throw invalidParam('Too many inputs provided; max 100');
    const cfg = configParam(p[1]);
    const o = accountOpts(cfg, 'base64');
    const keys = addrs.map(addressParam);
    const read = c.accountReader(levelOpt(cfg));
    return { context: context(c, cfg), value: keys.map((a) => renderAccount(read, read(a), o)) };
  },
  getBalance: (p, c) => {
    const address = addressParam(requireParam(p, 0, 'address'));
    const cfg = configParam(p[1]);
    return { context: context(c, cfg), value: c.accountReader(levelOpt(cfg))(address)?.lamports ?? 0n };
  },
  getSignaturesForAddress,
  getSignatureStatuses,
  getLatestBlockhash: (p, c) => {
    const cfg = configParam(p[0]);
    return { context: context(c, cfg), value: c.latestBlockhash(levelOpt(cfg)) };
  },
  isBlockhashValid: (p, c) => {
    const hash = requireParam(p, 0, 'blockhash');
    if (!isAddress(hash)) throw new RpcError(-32602, 'Invalid param: Invalid');
    const cfg = configParam(p[1]);
    return { context: context(c, cfg), value: c.isBlockhashValid(hash, levelOpt(cfg)) };
  },
  getGenesisHash: (_p, c) => c.genesisHash,
  getVersion: () => ({ 'feature-set': 3294202862, 'solana-core': SOLANA_CORE_VERSION }),
  getHealth: () => 'ok',
  getMinimumBalanceForRentExemption: (p, c) => c.minimumBalanceForRentExemption(slotParam(requireParam(p, 0, 'data length'), 'data length')),
  requestAirdrop: async (p, c) => {
    const address = addressParam(requireParam(p, 0, 'address'));
    const amount = u64(requireParam(p, 1, 'lamports'), 'lamports');
    try {
      return await c.requestAirdrop(address, amount);
    } catch (e) {
      throw new RpcError(-32600, (e as Error).message);
    }
  },
  getFirstAvailableBlock: (_p, c) => c.firstAvailableBlock,
  getEpochInfo: (p, c) => {
    const cfg = configParam(p[0]);
    context(c, cfg);
    return c.epochInfo(levelOpt(cfg));
  },
  getTransactionCount: (p, c) => {
    const cfg = configParam(p[0]);
    context(c, cfg);
    return c.transactionCountAt(levelOpt(cfg));
  },
  ...TOKEN_METHODS,
};

/** Runs one method; throws `RpcError` (-32601 for unknown methods). */
export async function callMethod(chain: LocalChain, method: string, params: unknown): Promise<unknown> {
  const handler = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
  if (!handler) throw new RpcError(-32601, 'Method not found');
  return handler(positional(params), chain);
}
