/**
 * GET /v1/wallet/{wallet}/balances: SOL first (showNative), then tokens by USD value descending, priced before
 * unpriced; page/limit over that list; `totalUsdValue` sums the page. NFT-like holdings (decimals 0, supply 1)
 * are listed under `nfts` (showNfts, first page only, at most 100), never among fungible balances.
 */
import type { FastifyInstance } from 'fastify';
import { uiAmount } from '../../../core/encoding.js';
import { NATIVE_DECIMALS, NATIVE_MINT, tokenProgramLabel } from '../../../core/programs.js';
import { queryHoldings, querySolBalance, type Holding } from '../../../store/tokens.js';
import type { ApiDeps } from '../../deps.js';
import { limitSchema, walletParam, walletParamsSchema } from './common.js';

const MAX_NFTS = 100;

interface Query {
  page: number;
  limit: number;
  showZeroBalance: boolean;
  showNative: boolean;
  showNfts: boolean;
}

interface BalanceItem {
  mint: string;
  balance: number;
  decimals: number;
  tokenProgram: 'spl-token' | 'token-2022';
  symbol: string | null;
  name: string | null;
  pricePerToken: number | null;
  usdValue: number | null;
  logoUri: string | null;
}

const isNftLike = (h: Holding) => h.decimals === 0 && h.supply === 1n;

function byValue(a: BalanceItem, b: BalanceItem): number {
  if ((a.usdValue === null) !== (b.usdValue === null)) return a.usdValue === null ? 1 : -1;
  if (a.usdValue !== null && b.usdValue !== null && a.usdValue !== b.usdValue) return b.usdValue - a.usdValue;
  if (a.balance !== b.balance) return b.balance - a.balance;
  return a.mint < b.mint ? -1 : a.mint > b.mint ? 1 : 0;
}

export function registerBalancesRoute(app: FastifyInstance, deps: ApiDeps): void {
  app.get(
    '/v1/wallet/:wallet/balances',
    {
      schema: {
        params: walletParamsSchema,
        querystring: {
          type: 'object',
          properties: {
            page: { type: 'integer', minimum: 1, default: 1 },
            limit: limitSchema(100),
            showZeroBalance: { type: 'boolean', default: false },
            showNative: { type: 'boolean', default: true },
            showNfts: { type: 'boolean', default: false },
          },
        },
      },
    },
    async (req) => {
      const wallet = walletParam((req.params as { wallet: string }).wallet);
      const q = req.query as Query;
      const holdings = await queryHoldings(deps.db, wallet);
      const fungible = holdings.filter((h) => !isNftLike(h) && (q.showZeroBalance || h.amount > 0n));
      const info = await deps.tokens.lookup([NATIVE_MINT, ...fungible.map((h) => h.mint)]);
      const item = (mint: string, raw: bigint, decimals: number, program: string): BalanceItem => {
        const t = info.get(mint);
        const balance = uiAmount(raw, decimals);
        const price = t?.priceUsd ?? null;
        return {
          mint,
          balance,
          decimals,
          tokenProgram: tokenProgramLabel(program),
          symbol: t?.symbol ?? null,
          name: t?.name ?? null,
          pricePerToken: price,
          usdValue: price === null ? null : balance * price,
          logoUri: t?.logoUri ?? null,
        };
      };
      const tokens = fungible.map((h) => item(h.mint, h.amount, h.decimals ?? 0, h.program)).sort(byValue);
      const list: BalanceItem[] = [];
      if (q.showNative) {
        const lamports = (await querySolBalance(deps.db, wallet)) ?? 0n;
        list.push({ ...item(NATIVE_MINT, lamports, NATIVE_DECIMALS, ''), tokenProgram: 'spl-token' });
      }
      list.push(...tokens);
      const start = (q.page - 1) * q.limit;
      const balances = list.slice(start, start + q.limit);
      const totalUsdValue = balances.reduce((s, b) => s + (b.usdValue ?? 0), 0);
      const body: Record<string, unknown> = {
        balances,
        totalUsdValue,
        pagination: { page: q.page, limit: q.limit, hasMore: list.length > start + q.limit },
      };
      if (q.showNfts) {
        const nfts = q.page === 1 ? holdings.filter((h) => isNftLike(h) && h.amount > 0n).sort((a, b) => (a.mint < b.mint ? -1 : 1)).slice(0, MAX_NFTS) : [];
        body.nfts = nfts.map((h) => ({ mint: h.mint, compressed: false, name: null, imageUri: null, collectionName: null, collectionAddress: null }));
      }
      return body;
    },
  );
}
