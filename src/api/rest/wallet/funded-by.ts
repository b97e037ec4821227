/** GET /v1/wallet/{wallet}/funded-by: the wallet's first incoming SOL transfer; 404 when none is indexed. */
import type { FastifyInstance } from 'fastify';
import { SolgateError } from '../../../core/errors.js';
import { uiAmount } from '../../../core/encoding.js';
import { NATIVE_DECIMALS, NATIVE_MINT } from '../../../core/programs.js';
import { queryFunding } from '../../../store/wallet-activity.js';
import { getIdentities } from '../../../store/identities.js';
import type { ApiDeps } from '../../deps.js';
import { readableSlot, walletParam, walletParamsSchema } from './common.js';

export function registerFundedByRoute(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/v1/wallet/:wallet/funded-by', { schema: { params: walletParamsSchema } }, async (req) => {
    const wallet = walletParam((req.params as { wallet: string }).wallet);
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
