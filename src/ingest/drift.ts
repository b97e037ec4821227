/**
 * The drift detector: samples indexed state and compares it with the cluster at the same slot, so a real
 * deployment learns when its index disagrees with the chain (a parser gap, a lost write, a hand-edited row).
 *
 * One round: a sample of SOL balances and open token accounts (address order from a random starting point — an
 * index scan, no table scan) is read from the cluster with `getMultipleAccounts` (`minContextSlot` = the checkpoint),
 * giving the state at some slot S; once the index's checkpoint has reached S, each indexed row whose last change is
 * at or before S must equal the cluster's state at S (a row changed after S cannot be judged and is skipped).
 * A difference is logged with both values, counted in `solgate_drift_mismatches_total{kind}`, and repaired by
 * writing the cluster's state at S through the ingester's account path (position-guarded: never over a newer write).
 * Compared rows are counted in `solgate_drift_checked_total{kind}`.
 */
import type { Logger } from 'pino';
import type { AccountUpdate } from '../core/model.js';
import { driftChecked, driftMismatches } from '../core/metrics.js';
import { SYSTEM_PROGRAM } from '../core/programs.js';
import { createWorkLoop } from '../core/work-loop.js';
import { decodeTokenProgramAccount } from '../parsers/accounts/token-program.js';
import { fetchAccountsAtSlot } from '../sources/account-fetch.js';
import type { PollerCommitment, RpcClient } from '../sources/rpc-client.js';
import { accountPos } from '../store/block-update.js';
import { getCheckpoint } from '../store/chain.js';
import type { Db } from '../store/db.js';
import { readBalances, readTokenAccounts, sampleBalanceAddresses, sampleTokenAccountAddresses } from '../store/tokens.js';

export interface DriftOptions {
  db: Db;
  client: RpcClient;
  ingester: { ingestAccounts(updates: AccountUpdate[]): Promise<void> };
  commitment: PollerCommitment;
  logger?: Pick<Logger, 'warn' | 'info' | 'debug'>;
  /** Rows sampled per kind per round (default 100). */
  sample?: number;
  /** Pause between rounds (default 60 s). */
  intervalMs?: number;
  /** How long a round waits for the index to reach the cluster's slot before giving up (default 30 s). */
  catchUpMs?: number;
  /** Where a round's sample starts (default random); tests pin it. */
  startAt?: () => string;
}

export interface DriftMismatch {
  kind: 'sol_balance' | 'token_account';
  address: string;
  slot: number;
  indexed: Record<string, string | boolean | null>;
  cluster: Record<string, string | boolean | null>;
}

export interface DriftReport {
  /** The cluster slot the round compared at (null: nothing sampled, or the index did not reach it in time). */
  slot: number | null;
  checked: number;
  /** Rows changed in the index after the compared slot (not judged). */
  skipped: number;
  mismatches: DriftMismatch[];
  /** Mismatched rows rewritten from the cluster (a token account the cluster has closed is only reported). */
  repaired: number;
}

export interface DriftDetector {
  /** One round now. */
  runOnce(signal?: AbortSignal): Promise<DriftReport>;
  start(): void;
  stop(): Promise<void>;
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const randomStart = () => Array.from({ length: 3 }, () => BASE58[Math.floor(Math.random() * BASE58.length)]).join('');

export function createDriftDetector(o: DriftOptions): DriftDetector {
  const n = o.sample ?? 100;
  const catchUpMs = o.catchUpMs ?? 30_000;

  async function waitForIndex(slot: number, signal?: AbortSignal): Promise<boolean> {
    const end = Date.now() + catchUpMs;
    for (;;) {
      if (((await getCheckpoint(o.db)) ?? -1) >= slot) return true;
      if (Date.now() > end || signal?.aborted) return false;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async function runOnce(signal?: AbortSignal): Promise<DriftReport> {
    const report: DriftReport = { slot: null, checked: 0, skipped: 0, mismatches: [], repaired: 0 };
    const from = (o.startAt ?? randomStart)();
    const [balances, tokens] = await Promise.all([sampleBalanceAddresses(o.db, from, n), sampleTokenAccountAddresses(o.db, from, n)]);
    const addresses = [...new Set([...balances, ...tokens])];
    const checkpoint = await getCheckpoint(o.db);
    if (!addresses.length || checkpoint === null) return report;
    const states = await fetchAccountsAtSlot(o.client, checkpoint, addresses.map((pubkey) => ({ pubkey, closedOwner: SYSTEM_PROGRAM })), { commitment: o.commitment, signal });
    const slot = Math.max(...states.map((s) => s.slot));
    if (!(await waitForIndex(slot, signal))) {
      o.logger?.info({ slot }, 'drift: the index did not reach the cluster\'s slot in time; round skipped');
      return report;
    }
    report.slot = slot;
    const byAddress = new Map(states.map((s) => [s.pubkey, s]));
    const [indexedBalances, indexedTokens] = await Promise.all([readBalances(o.db, balances), readTokenAccounts(o.db, tokens)]);
    const repair = new Map<string, AccountUpdate>();
    /** The cluster's state of a sampled row that can be judged (its last indexed change at or before that state). */
    const judge = (row: { pos: number } | undefined, address: string, kind: DriftMismatch['kind']): AccountUpdate | null => {
      const state = byAddress.get(address)!;
      if (!row) return null;
      if (row.pos > accountPos(state.slot)) {
        report.skipped++;
        return null;
      }
      report.checked++;
      driftChecked.inc({ kind });
      return state;
    };
    for (const address of balances) {
      const row = indexedBalances.get(address);
      const state = judge(row, address, 'sol_balance');
      if (row && state && row.lamports !== state.lamports) {
        report.mismatches.push({ kind: 'sol_balance', address, slot: state.slot, indexed: { lamports: String(row.lamports) }, cluster: { lamports: String(state.lamports) } });
        repair.set(address, state);
      }
    }
    for (const address of tokens) {
      const row = indexedTokens.get(address);
      const state = judge(row, address, 'token_account');
      if (!row || !state) continue;
      const decoded = decodeTokenProgramAccount(state);
      const cluster = decoded?.kind === 'account'
        ? { mint: decoded.mint, owner: decoded.owner, amount: String(decoded.amount), closed: false }
        : { mint: null, owner: null, amount: '0', closed: true };
      const indexed = { mint: row.mint, owner: row.owner, amount: String(row.amount), closed: row.closed };
      const same = cluster.closed ? row.closed || row.amount === 0n : !row.closed && indexed.mint === cluster.mint && indexed.owner === cluster.owner && indexed.amount === cluster.amount;
      if (!same) {
        report.mismatches.push({ kind: 'token_account', address, slot: state.slot, indexed, cluster });
        if (!cluster.closed) repair.set(address, state);
      }
    }
    for (const m of report.mismatches) {
      driftMismatches.inc({ kind: m.kind });
      o.logger?.warn({ kind: m.kind, address: m.address, slot: m.slot, indexed: m.indexed, cluster: m.cluster }, 'drift: the index differs from the cluster; re-reading it from the cluster');
    }
    if (repair.size) {
      await o.ingester.ingestAccounts([...repair.values()]);
      report.repaired = report.mismatches.filter((m) => repair.has(m.address)).length;
    }
    return report;
  }

  const loop = createWorkLoop(async (signal) => {
    try {
      await runOnce(signal);
    } catch (err) {
      o.logger?.warn({ err }, 'drift: round failed');
    }
    return false;
  }, { idleMs: o.intervalMs ?? 60_000 });

  return { runOnce, start: () => loop.start(), stop: () => loop.stop() };
}
