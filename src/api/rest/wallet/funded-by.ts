/**
 * GET /v1/wallet/{wallet}/funded-by: the wallet's first incoming SOL transfer; 404 when none is indexed or when it
 * cannot be known; 503 while the wallet's history is being read (`x-solgate-coverage` says why).
 */
import type { FastifyInstance } from 'fastify';
import { SolgateError } from '../../../core/errors.js';
import { uiAmount } from '../../../core/encoding.js';
import { NATIVE_DECIMALS, NATIVE_MINT } from '../../../core/programs.js';
import { queryFunding } from '../../../store/wallet-activity.js';
import { getIdentities } from '../../../store/identities.js';
import type { ApiDeps } from '../../deps.js';
import { minContextOnlyQuery, readableSlot, reportCoverage, walletParam, walletParamsSchema } from './common.js';
import type { CoverageReport } from '../../../core/coverage.js';

/**
 * Why the first funding is not known: 503 with Retry-After while it can still be learnt (the history is being read,
 * or reading it failed and is retried); 404 when this index cannot learn it (the cluster pruned that history, or
 * there is no cluster RPC to read it from) — never a later transfer presented as the first.
 */
function fundingUnknown(wallet: string, cov: CoverageReport): SolgateError {
  if (cov.basis === 'backfilling' || cov.basis === 'failed') {
    const why = cov.basis === 'backfilling'
      ? `its history before slot ${cov.slot ?? '?'} is being read from the cluster; ask again when it is done`
      : `reading its history from the cluster failed (${cov.error ?? 'unknown error'}); the next request tries again`;
    return new SolgateError('UNAVAILABLE', 'Funding source not known yet', { details: `${wallet}: ${why}`, retryAfter: 5 });
  }
  const why = cov.basis === 'truncated'
    ? `the cluster serves its history only from slot ${cov.slot ?? '?'} on, so its first funding cannot be known`
    : `the index does not hold the wallet's history from its first transaction and has no cluster RPC to read it from`;
  return new SolgateError('NOT_FOUND', 'Funding source cannot be known', { details: `${wallet}: ${why}` });
}

export function registerFundedByRoute(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/v1/wallet/:wallet/funded-by', { schema: { params: walletParamsSchema, querystring: minContextOnlyQuery } }, async (req, reply) => {
    const wallet = walletParam((req.params as { wallet: string }).wallet);
    // The first funding is known only once the wallet's earliest transfers are indexed; never guessed from later ones.
    const cov = await reportCoverage(deps, reply, wallet, 'history');
    // Retention drops old transactions, not the first funding each wallet keeps (wallet_funding): still known.
    if (cov && !cov.complete && cov.basis !== 'retention') throw fundingUnknown(wallet, cov);
    const f = await queryFunding(deps.db, wallet, await readableSlot(deps.db));
    if (!f) throw new SolgateError('NOT_FOUND', 'No funding transaction found', { details: `no incoming SOL transfer to ${wallet} is indexed` });
    const funder = (await getIdentities(deps.db, [f.funder])).get(f.funder);
    return {
      funder: f.funder,
      funderName: funder?.name ?? null,
      funderType: funder?.type ?? null,
      mint: NATIVE_MINT,
      symbol: 'SOL',
      amount: uiAmount(f.lamports, NATIVE_DECIMALS),
      amountRaw: f.lamports.toString(),
      decimals: NATIVE_DECIMALS,
      signature: f.signature,
      timestamp: f.blockTime,
      date: f.blockTime === null ? null : new Date(f.blockTime * 1000).toISOString(),
      slot: f.slot,
      explorerUrl: `${deps.explorerTxUrl}${f.signature}`,
    };
  });
}
