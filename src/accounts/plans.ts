/**
 * Plans and credit costs (compat-facts §7), configurable with SOLGATE_PLANS_FILE. Pure data and lookups.
 *
 * A plan has a per-second limit for each bucket (rpc — standard Solana JSON-RPC —, das — DAS and enhanced
 * transactions —, photon — ZK Compression —, validityProof, sendTransaction, wallet, getProgramAccounts), a burst allowance (extra requests above the per-second
 * rate, available once per `burstWindowSeconds`), a monthly credit quota, the features it includes and its webhook
 * limit. Credits are charged per call by cost category.
 */
import { readFileSync } from 'node:fs';

export const BUCKETS = ['rpc', 'das', 'photon', 'validityProof', 'sendTransaction', 'wallet', 'getProgramAccounts'] as const;
export type Bucket = (typeof BUCKETS)[number];

/** What a call costs, by category. */
export const COST_CATEGORIES = ['wallet', 'das', 'zk', 'validityProof', 'webhookManagement', 'webhookEvent', 'enhanced', 'tokenMetadata', 'rpc', 'rpcHeavy', 'addressHistory', 'sender'] as const;
export type CostCategory = (typeof COST_CATEGORIES)[number];

/** Features a plan may leave out (403 when it does). */
export const FEATURES = ['walletIdentity'] as const;
export type Feature = (typeof FEATURES)[number];

export interface Plan {
  name: string;
  /** Requests per second by bucket. */
  perSecond: Record<Bucket, number>;
  /** Extra requests per burst window above the per-second rate, as a multiple of the per-second rate. */
  burstFactor: number;
  burstWindowSeconds: number;
  /** Credits per calendar month (UTC); null = unlimited. */
  monthlyCredits: number | null;
  features: Feature[];
  maxWebhooks: number;
}

export interface PlanTable {
  plans: Record<string, Plan>;
  credits: Record<CostCategory, number>;
  /** The plan of keys whose plan name is not in the table. */
  fallbackPlan: string;
}

const plan = (name: string, rates: [number, number, number, number, number, number, number], monthlyCredits: number, features: Feature[], maxWebhooks: number): Plan => ({
  name,
  perSecond: { rpc: rates[0], das: rates[1], photon: rates[2], validityProof: rates[3], sendTransaction: rates[4], wallet: rates[5], getProgramAccounts: rates[6] },
  burstFactor: 2,
  burstWindowSeconds: 10,
  monthlyCredits,
  features,
  maxWebhooks,
});

/**
 * compat-facts §7: per-second limits (the wallet bucket, not published, follows the DAS bucket), webhook limits,
 * credit costs; monthly credits are the reference's published plan sizes (1M / 10M / 100M / 200M).
 */
export const DEFAULT_PLAN_TABLE: PlanTable = {
  plans: {
    free: plan('free', [10, 2, 2, 1, 1, 2, 5], 1_000_000, [], 5),
    developer: plan('developer', [50, 10, 10, 5, 5, 10, 25], 10_000_000, ['walletIdentity'], 50),
    business: plan('business', [200, 50, 50, 10, 50, 50, 50], 100_000_000, ['walletIdentity'], 50),
    professional: plan('professional', [500, 100, 100, 20, 100, 100, 75], 200_000_000, ['walletIdentity'], 50),
  },
  credits: { wallet: 100, das: 10, zk: 10, validityProof: 100, webhookManagement: 100, webhookEvent: 1, enhanced: 100, tokenMetadata: 10, rpc: 1, rpcHeavy: 10, addressHistory: 100, sender: 0 },
  fallbackPlan: 'free',
};

export class PlanFileError extends Error {}

const isNonNegInt = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/**
 * The plan table from a JSON file `{plans?: {name: Partial<Plan>}, credits?: Partial<credits>, fallbackPlan?}`
 * merged over the defaults (a plan named like a default starts from it). Throws PlanFileError naming the problem.
 */
export function loadPlanTable(file: string | undefined): PlanTable {
  if (!file) return DEFAULT_PLAN_TABLE;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new PlanFileError(`plans file ${file}: ${(e as Error).message}`);
  }
  return mergePlanTable(raw, file);
}

export function mergePlanTable(raw: unknown, source = 'plans'): PlanTable {
  const fail = (m: string): never => {
    throw new PlanFileError(`${source}: ${m}`);
  };
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) fail('must be a JSON object');
  const r = raw as { plans?: Record<string, Partial<Plan>>; credits?: Record<string, unknown>; fallbackPlan?: unknown };
  const plans: Record<string, Plan> = { ...DEFAULT_PLAN_TABLE.plans };
  for (const [name, p] of Object.entries(r.plans ?? {})) {
    const key = name.toLowerCase();
    const base = plans[key] ?? plan(key, [0, 0, 0, 0, 0, 0, 0], 0, [], 0);
    const perSecond = { ...base.perSecond };
    for (const [b, v] of Object.entries(p.perSecond ?? {})) {
      if (!(BUCKETS as readonly string[]).includes(b)) fail(`plan ${name}: unknown bucket ${b} (buckets: ${BUCKETS.join(', ')})`);
      if (!isNonNegInt(v)) fail(`plan ${name}: perSecond.${b} must be a non-negative integer`);
      perSecond[b as Bucket] = v as number;
    }
    const features = p.features ?? base.features;
    if (!Array.isArray(features) || features.some((f) => !(FEATURES as readonly string[]).includes(f))) fail(`plan ${name}: features must be a subset of ${FEATURES.join(', ')}`);
    const merged: Plan = { ...base, ...p, name: key, perSecond, features } as Plan;
    if (!(typeof merged.burstFactor === 'number' && merged.burstFactor >= 0)) fail(`plan ${name}: burstFactor must be a number ≥ 0`);
    if (!isNonNegInt(merged.burstWindowSeconds) || merged.burstWindowSeconds < 1) fail(`plan ${name}: burstWindowSeconds must be a positive integer`);
    if (merged.monthlyCredits !== null && !isNonNegInt(merged.monthlyCredits)) fail(`plan ${name}: monthlyCredits must be a non-negative integer or null`);
    if (!isNonNegInt(merged.maxWebhooks)) fail(`plan ${name}: maxWebhooks must be a non-negative integer`);
    plans[key] = merged;
  }
  const credits = { ...DEFAULT_PLAN_TABLE.credits };
  for (const [c, v] of Object.entries(r.credits ?? {})) {
    if (!(COST_CATEGORIES as readonly string[]).includes(c)) fail(`unknown credit category ${c} (categories: ${COST_CATEGORIES.join(', ')})`);
    if (!isNonNegInt(v)) fail(`credits.${c} must be a non-negative integer`);
    credits[c as CostCategory] = v as number;
  }
  const fallbackPlan = typeof r.fallbackPlan === 'string' ? r.fallbackPlan.toLowerCase() : DEFAULT_PLAN_TABLE.fallbackPlan;
  if (!plans[fallbackPlan]) fail(`fallbackPlan ${fallbackPlan} is not a plan`);
  return { plans, credits, fallbackPlan };
}

/** The plan of a key (its plan name, case-insensitive; unknown names get the fallback plan). */
export function planOf(table: PlanTable, name: string): Plan {
  return table.plans[name.toLowerCase()] ?? table.plans[table.fallbackPlan];
}
