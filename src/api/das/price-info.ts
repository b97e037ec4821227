/**
 * `token_info.symbol` and `token_info.price_info` of fungible assets, as the hosted DAS service returns them
 * (compat-facts §2: `token_info {symbol, balance, supply, decimals, token_program, associated_token_address,
 * price_info {price_per_token, currency, total_price}, mint_authority, freeze_authority}`). The open-source DAS
 * reference renders neither; they are added after rendering, to assets whose `interface` is `FungibleToken` or
 * `FungibleAsset` and that carry `token_info` (showFungible).
 *
 * - `symbol`: the token registry's symbol, else the asset's on-chain metadata symbol; left out when neither has one.
 * - `price_info`: the token registry's USD price (chain-derived or overridden, src/pricing/chain-prices.ts), with
 *   `currency: "USDC"` as the hosted service labels its USD prices; `total_price` = the owner's balance × price
 *   where the answer carries a `balance` (owner lists). Left out when no usable price is known.
 */
import type { TokenRegistry } from '../../pricing/token-registry.js';
import type { AssetJson } from './asset-json.js';

const FUNGIBLE_INTERFACES: ReadonlySet<unknown> = new Set(['FungibleToken', 'FungibleAsset']);

/** token_info's keys in the hosted service's order; others follow as they were. */
const ORDER = ['symbol', 'balance', 'supply', 'decimals', 'token_program', 'associated_token_address', 'price_info', 'mint_authority', 'freeze_authority'];

function metadataSymbol(a: AssetJson): string | null {
  const s = ((a.content as AssetJson | undefined)?.metadata as AssetJson | undefined)?.symbol;
  if (typeof s !== 'string') return null;
  const clean = s.replace(/\u0000/g, '').trim();
  return clean === '' ? null : clean;
}

/** Adds `symbol` and `price_info` to the `token_info` of the fungible assets among `items` (in place). */
export async function addTokenPrices(items: Iterable<AssetJson>, tokens: TokenRegistry | undefined): Promise<void> {
  const fungible = [...items].filter((a) => FUNGIBLE_INTERFACES.has(a.interface) && a.token_info && typeof a.token_info === 'object');
  if (!fungible.length) return;
  const info = tokens ? await tokens.lookup([...new Set(fungible.map((a) => String(a.id)))]) : new Map();
  for (const a of fungible) {
    const ti = a.token_info as AssetJson;
    const reg = info.get(String(a.id));
    const symbol = reg?.symbol ?? metadataSymbol(a);
    const price = reg?.priceUsd;
    const extra: AssetJson = {};
    if (symbol) extra.symbol = symbol;
    if (price !== undefined && Number.isFinite(price) && price > 0) {
      const p: AssetJson = { price_per_token: price };
      if (typeof ti.balance === 'number' && typeof ti.decimals === 'number') p.total_price = (ti.balance / 10 ** ti.decimals) * price;
      p.currency = 'USDC';
      extra.price_info = p;
    }
    const merged: AssetJson = { ...ti, ...extra };
    const out: AssetJson = {};
    for (const k of ORDER) if (k in merged) out[k] = merged[k];
    for (const k of Object.keys(merged)) if (!(k in out)) out[k] = merged[k];
    a.token_info = out;
  }
}
