/**
 * Coverage: whether the index can answer completely about an address. The API asks through
 * `deps.ensureCovered` (built in `cli/` from the cluster RPC and the ingester); it never imports the hydrator.
 * Every answer that depends on it carries the `x-solgate-coverage` header (docs/coverage.md).
 */

/**
 * What an answer needs the index to hold for an address: its current state (balances, token accounts, assets), its
 * whole transaction history (history, transfers, funded-by), or — for an asset id — the asset's own accounts.
 * For a key that lists assets (DAS getAssetsByGroup / ByCreator / ByAuthority, searchAssets): every asset of the
 * collection (`group`), naming it as a creator (`creator`) or having it as an authority (`authority`).
 */
export type CoverageNeed = 'state' | 'history' | 'asset' | KeyNeed;

/** The needs of a key that lists assets (`ingest/hydrate-group.ts`). */
export type KeyNeed = 'group' | 'creator' | 'authority';
export const KEY_NEEDS: readonly KeyNeed[] = ['group', 'creator', 'authority'];
export const isKeyNeed = (n: CoverageNeed): n is KeyNeed => (KEY_NEEDS as readonly string[]).includes(n);

export interface CoverageReport {
  /** The answer about this address is complete. */
  complete: boolean;
  /**
   * Why: `genesis` (the index has every block since the cluster's first), `hydrated` (the address's state was read
   * from the cluster at `slot` and followed since), `backfilled` (its history was read back to its first
   * transaction), `backfilling` (that is under way: complete from `slot` on), `truncated` (the cluster serves its
   * history only from `slot` on), `since-origin` (an answer over many addresses: the index holds what happened from
   * `slot`, where it began, on), `accounts` (a key's assets that are accounts were read at `slot` and followed
   * since, but it may also have compressed NFTs or assets no account filter finds: `reason`), `no-cluster` (no
   * cluster RPC to read from), `failed` (the read failed; `error`), `retention` (the history was complete, but the
   * retention setting has dropped what is older than `slot`: complete from `slot` on; docs/storage.md).
   */
  basis: 'genesis' | 'hydrated' | 'backfilled' | 'backfilling' | 'truncated' | 'since-origin' | 'accounts' | 'no-cluster' | 'failed' | 'retention';
  /**
   * `hydrated`/`accounts`: the slot the state was read at; `backfilling`/`truncated`/`retention`: the oldest slot the
   * history is complete from.
   */
  slot?: number;
  error?: string;
  /** `accounts`: what the answer may lack, and why. */
  reason?: string;
}

export type EnsureCovered = (address: string, need: CoverageNeed) => Promise<CoverageReport>;

/** The report of a key whose assets were read at `slot`: complete, or what its accounts may not include (`partial`). */
export const keyReadReport = (slot: number, partial: string | null): CoverageReport =>
  partial === null ? { complete: true, basis: 'hydrated', slot } : { complete: false, basis: 'accounts', slot, reason: partial };

/**
 * The coverage of an answer that is about no single address (lists by collection or creator, searches), or — with
 * `family: 'zk'` — of a ZK Compression answer (complete once the trees' history before the origin was read).
 */
export type IndexCoverage = (family?: 'zk') => Promise<CoverageReport>;

/** The response header that says whether an answer is complete. */
export const COVERAGE_HEADER = 'x-solgate-coverage';

const quoted = (s: string) => `"${s.replace(/["\\\r\n]/g, ' ').slice(0, 200)}"`;

/** The header value: `complete; basis=hydrated; slot=123`, `partial; basis=failed; error="…"`, `partial; basis=accounts; slot=S; reason="…"`. */
export function coverageHeaderValue(r: CoverageReport): string {
  const parts = [r.complete ? 'complete' : 'partial', `basis=${r.basis}`];
  if (r.slot !== undefined) parts.push(`slot=${r.slot}`);
  if (r.error) parts.push(`error=${quoted(r.error)}`);
  if (r.reason) parts.push(`reason=${quoted(r.reason)}`);
  return parts.join('; ');
}
