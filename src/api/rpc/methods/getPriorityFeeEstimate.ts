/**
 * getPriorityFeeEstimate `[{transaction?, accountKeys?, options?}]` (the RPC extension, compat-facts-rpc §2) from the
 * compute-unit prices of the indexed blocks (`priority_fees`, written with each block): over the last `lookbackSlots`
 * indexed slots (1–150, default 150), each priority level is the larger of the global percentile and every requested
 * account's percentile (Min/Low/Medium/High/VeryHigh/UnsafeMax = 0/25/50/75/95/100, Default = Medium), in
 * micro-lamports per compute unit. An account gets 0 for each slot it was not written in when
 * `evaluateEmptySlotAsZero` (default true with options, false without); `includeVote` (default false with options,
 * true without) counts the slot's vote transactions as price 0 in the global list. Accounts come from `accountKeys`
 * (≤ 500) or from the writable static keys of `transaction` (base58 or base64 wire transaction; keys loaded from lookup
 * tables are not resolved). Answer: `priorityFeeLevels` (with `includeAllPriorityFeeLevels`), else
 * `priorityFeeEstimate` for `priorityLevel`, else `recommended` → max(medium, 10 000) rounded up, else medium.
 */
import { getBase58Encoder, getBase64Encoder, getCompiledTransactionMessageDecoder, getTransactionDecoder } from '../../../vendor/solana-kit.js';
import { SolgateError } from '../../../core/errors.js';
import { isAddress } from '../../../core/encoding.js';
import { getCheckpoint } from '../../../store/chain.js';
import { priorityFeeWindow } from '../../../store/priority-fees.js';
import type { RpcMethod } from '../method.js';
import { listParams } from '../params-schema.js';

export const paramsSchema = listParams(
  'request',
  {
    type: 'object',
    description: '{transaction?, accountKeys?, options?}',
    properties: {
      transaction: { type: 'string', description: 'a wire transaction (base58 or base64, see options.transactionEncoding)' },
      accountKeys: { type: 'array', maxItems: 500, items: { type: 'string' } },
      options: { type: 'object' },
    },
  },
  1,
  '[{transaction?: wire transaction (base58 or base64), accountKeys?: base58 keys (≤ 500), options?}]',
);

const LEVELS = { min: 0, low: 25, medium: 50, high: 75, veryHigh: 95, unsafeMax: 100 } as const;
const LEVEL_OF: Record<string, keyof typeof LEVELS> = {
  min: 'min', low: 'low', medium: 'medium', high: 'high', veryhigh: 'veryHigh', unsafemax: 'unsafeMax', default: 'medium',
};
const OPTION_KEYS = new Set(['priorityLevel', 'transactionEncoding', 'lookbackSlots', 'includeVote', 'evaluateEmptySlotAsZero', 'includeAllPriorityFeeLevels', 'recommended', 'includeDetails']);

const bad = (m: string): never => {
  throw new SolgateError('INVALID_PARAMS', `Invalid Request: ${m}`);
};

/** The p-th percentile of sorted values (nearest rank; 0 of an empty list). */
export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

function writableKeys(wire: string, encoding: 'base58' | 'base64'): string[] {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(encoding === 'base64' ? getBase64Encoder().encode(wire) : getBase58Encoder().encode(wire));
    const tx = getTransactionDecoder().decode(bytes);
    const msg = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
    const h = msg.header;
    const n = msg.staticAccounts.length;
    return msg.staticAccounts.filter((_, i) =>
      i < h.numSignerAccounts ? i < h.numSignerAccounts - h.numReadonlySignerAccounts : i < n - h.numReadonlyNonSignerAccounts,
    ).map(String);
  } catch (e) {
    return bad(`could not decode the transaction as ${encoding}: ${(e as Error).message}`);
  }
}

export const getPriorityFeeEstimate: RpcMethod = {
  name: 'getPriorityFeeEstimate',
  credits: 1,
  paramsSchema,
  async handler(params, deps) {
    if (!Array.isArray(params)) return bad('expected an array [{transaction?, accountKeys?, options?}]');
    if (params.length > 1) return bad(`expected one request object, got ${params.length} params. Maximum allowed: 1`);
    const req = (params[0] ?? {}) as Record<string, unknown>;
    if (typeof req !== 'object' || Array.isArray(req)) return bad('the request must be an object');
    for (const k of Object.keys(req)) if (!['transaction', 'accountKeys', 'options'].includes(k)) bad(`unknown field \`${k}\`, expected \`transaction\`, \`accountKeys\`, \`options\``);
    if (req.transaction !== undefined && req.accountKeys !== undefined) bad('give either transaction or accountKeys, not both');
    const optsGiven = req.options !== undefined && req.options !== null;
    const o = (req.options ?? {}) as Record<string, unknown>;
    if (typeof o !== 'object' || Array.isArray(o)) return bad('options must be an object');
    for (const k of Object.keys(o)) if (!OPTION_KEYS.has(k)) bad(`unknown option \`${k}\``);
    const lookback = o.lookbackSlots ?? 150;
    if (!Number.isInteger(lookback) || (lookback as number) < 1 || (lookback as number) > 150) bad('lookback_slots must be between 1 and 150');
    for (const k of ['includeVote', 'evaluateEmptySlotAsZero', 'includeAllPriorityFeeLevels', 'recommended', 'includeDetails'])
      if (o[k] !== undefined && typeof o[k] !== 'boolean') bad(`${k} must be a boolean`);
    let level: keyof typeof LEVELS | undefined;
    if (o.priorityLevel !== undefined) {
      level = typeof o.priorityLevel === 'string' ? LEVEL_OF[o.priorityLevel.toLowerCase()] : undefined;
      if (!level) bad('priorityLevel must be one of Min, Low, Medium, High, VeryHigh, UnsafeMax, Default');
    }
    const encoding = typeof o.transactionEncoding === 'string' ? o.transactionEncoding.toLowerCase() : o.transactionEncoding === undefined ? 'base58' : null;
    if (encoding !== 'base58' && encoding !== 'base64') return bad('transactionEncoding must be base58 or base64');
    let accounts: string[] = [];
    if (req.transaction !== undefined) {
      if (typeof req.transaction !== 'string' || !req.transaction) return bad('transaction must be a string');
      accounts = writableKeys(req.transaction, encoding);
    } else if (req.accountKeys !== undefined) {
      if (!Array.isArray(req.accountKeys) || req.accountKeys.length > 500) return bad('accountKeys must be a list of at most 500 keys');
      for (const k of req.accountKeys) if (typeof k !== 'string' || !isAddress(k)) bad(`${JSON.stringify(k)?.slice(0, 60)} is not a base58 public key`);
      accounts = [...new Set(req.accountKeys as string[])];
    }
    const includeVote = (o.includeVote as boolean | undefined) ?? !optsGiven;
    const emptyAsZero = (o.evaluateEmptySlotAsZero as boolean | undefined) ?? optsGiven;

    const to = (await getCheckpoint(deps.db)) ?? 0;
    const rows = await priorityFeeWindow(deps.db, ['*', ...accounts], to - (lookback as number), to);
    const slots = rows.filter((r) => r.account === '*');
    const global: number[] = [];
    for (const r of slots) {
      for (const x of r.rates) global.push(Number(x));
      if (includeVote) for (let i = 0; i < r.votes; i++) global.push(0);
    }
    const lists = new Map<string, number[]>(accounts.map((a) => [a, []]));
    const seen = new Map<string, Set<number>>(accounts.map((a) => [a, new Set()]));
    for (const r of rows) {
      if (r.account === '*') continue;
      for (const x of r.rates) lists.get(r.account)!.push(Number(x));
      seen.get(r.account)!.add(r.slot);
    }
    if (emptyAsZero) for (const a of accounts) for (const s of slots) if (!seen.get(a)!.has(s.slot)) lists.get(a)!.push(0);
    const sortedLists = [global, ...lists.values()].map((l) => [...l].sort((x, y) => x - y));
    const levels = Object.fromEntries(
      Object.entries(LEVELS).map(([name, p]) => [name, Math.round(Math.max(...sortedLists.map((l) => percentile(l, p))))]),
    ) as Record<keyof typeof LEVELS, number>;
    const details = o.includeDetails === true
      ? { priorityFeeEstimateDetails: { slots: slots.length, lookbackSlots: lookback, accounts: Object.fromEntries([...lists].map(([a, l]) => [a, l.length])), transactions: global.length } }
      : {};
    if (o.includeAllPriorityFeeLevels === true) return { priorityFeeLevels: levels, ...details };
    if (level) return { priorityFeeEstimate: levels[level], ...details };
    if (o.recommended === true) return { priorityFeeEstimate: Math.ceil(Math.max(levels.medium, 10_000)), ...details };
    return { priorityFeeEstimate: levels.medium, ...details };
  },
};
