/**
 * GET /v1/wallet/{wallet}/balances: SOL first (showNative), then tokens by USD value descending, priced before
 * unpriced; page/limit over that list; `totalUsdValue` sums the page. Token names, symbols and logos: registry
 * first, then the mint's on-chain metadata (rules in ./token-metadata.ts). NFTs are never among the fungible
 * balances; with showNfts they are listed under `nfts` from the DAS index (first page only, at most 100 — rules
 * in ./nfts.ts).
 *
 * What counts as an NFT holding: a mint the DAS index has as a single-owner asset (`owner_type = 'single'`);
 * a mint it has as a fungible asset is a token even with 0 decimals and supply 1 (DAS calls it FungibleToken);
 * a mint the index has no asset for falls back to the shape test (0 decimals, supply 1), so an NFT whose
 * metadata was never indexed is not shown as a token.
 */
import type { FastifyInstance } from 'fastify';
import { uiAmount } from '../../../core/encoding.js';
import { NATIVE_DECIMALS, NATIVE_MINT, tokenProgramLabel } from '../../../core/programs.js';
import { queryHoldings, querySolBalance, type Holding } from '../../../store/tokens.js';
import type { ApiDeps } from '../../deps.js';
import { limitSchema, minContextSlotSchema, reportCoverage, walletParam, walletParamsSchema } from './common.js';
import { describeToken, offchainImages, onChainTokenMetadata } from './token-metadata.js';
import { assetJsonUri, dasOwnerTypes, nftItem, walletNftAssets } from './nfts.js';

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

/** A balance before it is named (sorting and paging need only amounts and prices). */
type Priced = Omit<BalanceItem, 'symbol' | 'name' | 'logoUri'>;

const isNftShaped = (h: Holding) => h.decimals === 0 && h.supply === 1n;

function byValue(a: Priced, b: Priced): number {
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
            minContextSlot: minContextSlotSchema,
            limit: limitSchema(100),
            showZeroBalance: { type: 'boolean', default: false },
            showNative: { type: 'boolean', default: true },
            showNfts: { type: 'boolean', default: false, description: 'include NFTs under `nfts`: at most 100 (getAssetsByOwner order), first page only' },
          },
        },
      },
    },
    async (req, reply) => {
      const wallet = walletParam((req.params as { wallet: string }).wallet);
      const q = req.query as Query;
      await reportCoverage(deps, reply, wallet);
      const [holdings, lamports, nftAssets] = await Promise.all([
        queryHoldings(deps.db, wallet),
        q.showNative ? querySolBalance(deps.db, wallet) : null,
        q.showNfts && q.page === 1 ? walletNftAssets(deps.db, wallet) : [],
      ]);
      const classes = await dasOwnerTypes(deps.db, holdings.map((h) => h.mint));
      const isNft = (h: Holding) => {
        const c = classes.get(h.mint);
        return c === undefined ? isNftShaped(h) : c === 'single';
      };
      const fungible = holdings.filter((h) => !isNft(h) && (q.showZeroBalance || h.amount > 0n));
      const prices = await deps.tokens.lookup([NATIVE_MINT, ...fungible.map((h) => h.mint)]);
      const priced = (mint: string, raw: bigint, decimals: number, tokenProgram: Priced['tokenProgram']): Priced => {
        const balance = uiAmount(raw, decimals);
        const price = prices.get(mint)?.priceUsd ?? null;
        return { mint, balance, decimals, tokenProgram, pricePerToken: price, usdValue: price === null ? null : balance * price };
      };
      const list: Priced[] = [];
      if (q.showNative) list.push(priced(NATIVE_MINT, lamports ?? 0n, NATIVE_DECIMALS, 'spl-token'));
      list.push(...fungible.map((h) => priced(h.mint, h.amount, h.decimals ?? 0, tokenProgramLabel(h.program))).sort(byValue));
      const start = (q.page - 1) * q.limit;
      const page = list.slice(start, start + q.limit);

      // Names, symbols and logos for this page's tokens only: one query per source (./token-metadata.ts).
      const onChain = await onChainTokenMetadata(deps.db, page.map((b) => b.mint));
      const uris = new Set<string>();
      for (const b of page) {
        const uri = onChain.get(b.mint)?.uri;
        if (uri) uris.add(uri);
      }
      for (const a of nftAssets) {
        const uri = assetJsonUri(a);
        if (uri) uris.add(uri);
      }
      const images = uris.size ? await offchainImages(deps.db, [...uris]) : new Map<string, string>();
      const balances: BalanceItem[] = page.map((b) => {
        const d = describeToken(prices.get(b.mint), onChain.get(b.mint), images);
        return { mint: b.mint, balance: b.balance, decimals: b.decimals, tokenProgram: b.tokenProgram, symbol: d.symbol, name: d.name, pricePerToken: b.pricePerToken, usdValue: b.usdValue, logoUri: d.logoUri };
      });
      const totalUsdValue = balances.reduce((s, b) => s + (b.usdValue ?? 0), 0);
      const body: Record<string, unknown> = {
        balances,
        totalUsdValue,
        pagination: { page: q.page, limit: q.limit, hasMore: list.length > start + q.limit },
      };
      if (q.showNfts) body.nfts = nftAssets.map((a) => nftItem(a, images));
      return body;
    },
  );
}
