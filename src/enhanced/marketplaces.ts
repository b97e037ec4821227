/**
 * NFT marketplace operations (`events.nft`). Pure.
 *
 * Covered: Magic Eden v2 (M2mx93ekt1fmXSVkTrUL9xVFHkmME8HTUi5Cyc5aF7K), an Anchor program whose entrypoints are
 * documented in its public repository (buy_v2, cancel_buy, deposit, withdraw, sell, cancel_sell, execute_sale_v2,
 * and their mip1_/ocp_ variants for pNFTs and OCP NFTs; `buy` is the older bid):
 *  - execute_sale_v2 → NFT_SALE, saleType INSTANT_SALE: buyer = account 0, seller = account 1, mint = account 4,
 *    amount = the `buyer_price` argument (u64 at byte 10, after the two bump seeds). Checked against a recorded
 *    mainnet sale and the reference's own enhanced answer for it (test/enhanced/marketplaces.test.ts);
 *  - mip1_execute_sale_v2 / ocp_execute_sale_v2 → NFT_SALE; their account layout is not checked here, so the buyer
 *    is the owner that received the NFT (post token balances), the seller the account whose lamports rose most, the
 *    amount the buyer's lamport decrease without fee and rent of accounts it opened;
 *  - sell / mip1_sell / ocp_sell → NFT_LISTING; cancel_sell / mip1_cancel_sell / ocp_cancel_sell →
 *    NFT_CANCEL_LISTING; buy_v2 and `buy` without a sale → NFT_BID; cancel_buy → NFT_BID_CANCELLED: the party is
 *    the instruction's first account (the wallet that signs; checked for `buy` on the recorded sale), the amount is
 *    `buy`'s price argument (u64 at byte 10, checked) and 0 otherwise, `nfts` is empty (not read from the accounts).
 * Not covered (they come out as whatever else applies, usually UNKNOWN with their transfers): Tensor (TSWAP,
 * TCOMP), Magic Eden MMM pools, Metaplex Auction House, other marketplaces, and cNFT sales through a marketplace
 * (they read as COMPRESSED_NFT_* from Bubblegum).
 */
import type { Address, NormalizedTx } from '../core/model.js';
import { indexedTokenDeltas } from '../parsers/balances.js';
import type { TracedInstruction } from '../parsers/events.js';
import { MAGIC_EDEN_V2_PROGRAM, anchorMatcher } from './programs.js';
import type { NftEvent, SaleType, TokenStandard, TransactionSource, TransactionType } from './types.js';

const M2 = anchorMatcher([
  'execute_sale_v2', 'mip1_execute_sale_v2', 'ocp_execute_sale_v2',
  'sell', 'mip1_sell', 'ocp_sell', 'cancel_sell', 'mip1_cancel_sell', 'ocp_cancel_sell',
  'buy', 'buy_v2', 'cancel_buy',
]);

export interface MarketplaceVerdict {
  type: TransactionType;
  source: TransactionSource;
  nft: NftEvent;
}

const u64At = (data: Uint8Array, o: number): bigint | null =>
  data.length >= o + 8 ? new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(o, true) : null;

export function marketplaceEvent(
  tx: NormalizedTx,
  ixs: readonly TracedInstruction[],
  standard: (mint: Address) => TokenStandard,
): MarketplaceVerdict | null {
  const named = ixs.flatMap((ix) => {
    if (ix.programId !== MAGIC_EDEN_V2_PROGRAM) return [];
    const name = M2(ix.data);
    return name ? [{ ix, name }] : [];
  });
  if (!named.length) return null;
  const base = (type: TransactionType, saleType: SaleType, amount: bigint, buyer: Address | '', seller: Address | '', mints: Address[]): MarketplaceVerdict => ({
    type,
    source: 'MAGIC_EDEN',
    nft: {
      description: '',
      type,
      source: 'MAGIC_EDEN',
      amount: Number(amount),
      fee: tx.meta ? Number(tx.meta.fee) : 0,
      feePayer: tx.accountKeys[0] ?? '',
      signature: tx.signature,
      slot: tx.slot,
      timestamp: tx.blockTime ?? 0,
      saleType,
      buyer,
      seller,
      staker: '',
      nfts: mints.map((mint) => ({ mint, tokenStandard: standard(mint) })),
    },
  });

  const sale = named.find((n) => n.name.endsWith('execute_sale_v2'));
  if (sale) {
    if (sale.name === 'execute_sale_v2') {
      const [buyer = '', seller = '', , , mint] = sale.ix.accounts;
      return base('NFT_SALE', 'INSTANT_SALE', u64At(sale.ix.data, 10) ?? 0n, buyer, seller, mint ? [mint] : []);
    }
    const f = saleFromBalances(tx);
    return base('NFT_SALE', 'INSTANT_SALE', f.amount, f.buyer, f.seller, f.mints);
  }
  const first = named[0];
  const party = first.ix.accounts[0] ?? '';
  if (first.name.endsWith('cancel_sell')) return base('NFT_CANCEL_LISTING', 'INSTANT_SALE', 0n, '', party, []);
  if (first.name.endsWith('sell')) return base('NFT_LISTING', 'INSTANT_SALE', 0n, '', party, []);
  if (first.name === 'cancel_buy') return base('NFT_BID_CANCELLED', 'INSTANT_SALE', 0n, party, '', []);
  return base('NFT_BID', 'INSTANT_SALE', first.name === 'buy' ? (u64At(first.ix.data, 10) ?? 0n) : 0n, party, '', []);
}

/** Buyer, seller, NFTs and price of a sale read from balance changes (no account layout assumed). */
function saleFromBalances(tx: NormalizedTx): { buyer: Address | ''; seller: Address | ''; amount: bigint; mints: Address[] } {
  const meta = tx.meta;
  const received = indexedTokenDeltas(tx).filter((d) => d.decimals === 0 && d.delta > 0n);
  const buyer = received[0]?.owner ?? '';
  if (!meta) return { buyer, seller: '', amount: 0n, mints: received.map((d) => d.mint) };
  let seller = '';
  let best = 0n;
  tx.accountKeys.forEach((k, i) => {
    const d = (meta.postBalances[i] ?? 0n) - (meta.preBalances[i] ?? 0n);
    if (d > best && k !== buyer) {
      best = d;
      seller = k;
    }
  });
  const bi = buyer ? tx.accountKeys.indexOf(buyer) : -1;
  let amount = 0n;
  if (bi >= 0) {
    amount = (meta.preBalances[bi] ?? 0n) - (meta.postBalances[bi] ?? 0n) - (bi === 0 ? meta.fee : 0n);
    // rent of the token accounts opened for the buyer is not part of the price
    for (const d of received) if ((meta.preBalances[d.index] ?? 0n) === 0n) amount -= meta.postBalances[d.index] ?? 0n;
  }
  return { buyer, seller, amount: amount > 0n ? amount : 0n, mints: [...new Set(received.map((d) => d.mint))] };
}
