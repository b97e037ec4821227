/**
 * Drift probes of SOL balances and open token accounts: each sampled row whose last change is at or before the
 * cluster's state must equal it (lamports; mint, owner and amount). A token account the cluster no longer has is read
 * as closed (requested with a token program as `closedOwner`, so the ingester's account path closes it as a
 * `CloseAccount` does: closed, amount 0).
 */
import { SYSTEM_PROGRAM, TOKEN_PROGRAM } from '../../core/programs.js';
import { decodeTokenProgramAccount } from '../../parsers/accounts/token-program.js';
import { accountPos } from '../../store/block-update.js';
import type { Db } from '../../store/db.js';
import { readBalances, readTokenAccounts, sampleBalanceAddresses, sampleTokenAccountAddresses } from '../../store/tokens.js';
import type { AccountUpdate } from '../../core/model.js';
import type { DriftKind, DriftProbe, DriftRound } from './types.js';

/**
 * Each sampled address that has both an indexed row and a cluster state, whose row last changed at or before that
 * state (a later row cannot be judged: skipped), counted as checked under `kind`.
 */
function* judged<R extends { pos: number }>(r: DriftRound, kind: DriftKind, sample: readonly string[], rows: ReadonlyMap<string, R>): Generator<[string, R, AccountUpdate]> {
  for (const address of sample) {
    const row = rows.get(address);
    const state = r.states.get(address);
    if (!row || !state) continue;
    if (row.pos > accountPos(state.slot)) {
      r.skipped();
      continue;
    }
    r.checked(kind);
    yield [address, row, state];
  }
}

export async function solBalanceProbe(db: Db, from: string, n: number): Promise<DriftProbe> {
  const sample = await sampleBalanceAddresses(db, from, n);
  return {
    requests: sample.map((pubkey) => ({ pubkey, closedOwner: SYSTEM_PROGRAM })),
    async compare(r) {
      for (const [address, row, state] of judged(r, 'sol_balance', sample, await readBalances(r.db, sample))) {
        if (row.lamports !== state.lamports) {
          r.mismatch({ kind: 'sol_balance', address, slot: state.slot, indexed: { lamports: String(row.lamports) }, cluster: { lamports: String(state.lamports) }, action: 'rewritten' });
          r.rewrite(state);
        }
      }
    },
  };
}

export async function tokenAccountProbe(db: Db, from: string, n: number): Promise<DriftProbe> {
  const sample = await sampleTokenAccountAddresses(db, from, n);
  return {
    // Gone on the cluster = closed: reported owned by a token program (which one does not matter to the close).
    requests: sample.map((pubkey) => ({ pubkey, closedOwner: TOKEN_PROGRAM })),
    async compare(r) {
      for (const [address, row, state] of judged(r, 'token_account', sample, await readTokenAccounts(r.db, sample))) {
        const decoded = decodeTokenProgramAccount(state);
        const cluster = decoded?.kind === 'account'
          ? { mint: decoded.mint, owner: decoded.owner, amount: String(decoded.amount), closed: false }
          : { mint: null, owner: null, amount: '0', closed: true };
        const indexed = { mint: row.mint, owner: row.owner, amount: String(row.amount), closed: row.closed };
        const same = cluster.closed
          ? row.closed
          : !row.closed && indexed.mint === cluster.mint && indexed.owner === cluster.owner && indexed.amount === cluster.amount;
        if (same) continue;
        r.mismatch({ kind: 'token_account', address, slot: state.slot, indexed, cluster, action: 'rewritten' });
        r.rewrite(state);
      }
    },
  };
}
