/**
 * Token Metadata: a recorded mainnet edition print (MintNewEditionFromMasterEditionViaToken, copied from a public
 * RPC-client test, signatures verified), and the recorded mainnet block's Bubblegum mints, which invoke Token
 * Metadata only to update their collection (they stay COMPRESSED_NFT_MINT). Expectations are read from the
 * recorded JSON: the instruction's accounts and the post token balances.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { base58ToBytes } from '../../src/core/encoding.js';
import { classifyTransaction } from '../../src/enhanced/index.js';
import { walkTransaction } from '../../src/parsers/walk.js';
import { parseTransaction } from '../../src/parsers/registry.js';
import { normalizeRpcTransaction } from '../../src/sources/normalize-rpc.js';
import { loadRecorded, signaturesVerify } from './recorded.js';

const TOKEN_METADATA = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s';

describe('Token Metadata edition print (recorded mainnet transaction)', () => {
  const { raw, e } = loadRecorded('token-metadata-print-edition.json');
  const keys = raw.transaction.message.accountKeys;
  const tmIx = raw.transaction.message.instructions.find((ix) => keys[ix.programIdIndex] === TOKEN_METADATA)!;
  // Token Metadata instruction 11 = MintNewEditionFromMasterEditionViaToken; its 4th account is the new mint.
  const newMint = keys[tmIx.accounts[3]];
  const holder = raw.meta.postTokenBalances.find((b) => b.mint === newMint)!;

  it('is the signed transaction', () => expect(signaturesVerify(raw)).toBe(true));

  it('the recorded instruction is MintNewEditionFromMasterEditionViaToken', () => {
    expect(base58ToBytes(tmIx.data)[0]).toBe(11);
    expect(raw.meta.preTokenBalances.some((b) => b.mint === newMint)).toBe(false); // a new mint
    expect(holder.uiTokenAmount).toMatchObject({ amount: '1', decimals: 0 });
  });

  it('is an NFT_MINT from METAPLEX with events.nft (saleType MINT, the printed edition)', () => {
    expect([e.type, e.source]).toEqual(['NFT_MINT', 'METAPLEX']);
    expect(e.events.nft).toMatchObject({
      type: 'NFT_MINT',
      source: 'METAPLEX',
      saleType: 'MINT',
      buyer: holder.owner,
      seller: '',
      nfts: [{ mint: newMint, tokenStandard: 'NonFungibleEdition' }],
      signature: raw.transaction.signatures[0],
      slot: raw.slot,
      timestamp: raw.blockTime,
      fee: raw.meta.fee,
      feePayer: keys[0],
    });
    expect(e.description).toBe(`${holder.owner} minted ${newMint}.`);
  });

  it('the minted token is listed with the edition standard', () => {
    expect(e.tokenTransfers).toEqual([
      { fromUserAccount: '', toUserAccount: holder.owner, fromTokenAccount: '', toTokenAccount: keys[holder.accountIndex], tokenAmount: 1, mint: newMint, tokenStandard: 'NonFungibleEdition' },
    ]);
  });
});

describe('Bubblegum mints that invoke Token Metadata (recorded mainnet block 254170887)', () => {
  const block = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'photon-blocks', 'index_block_metadata', '254170887'), 'utf8'));
  const withTm = (block.transactions as unknown[])
    .map((t) => normalizeRpcTransaction({ ...(t as object), slot: 254170887, blockTime: block.blockTime }))
    .filter((tx) => walkTransaction(tx).some((ix) => ix.programId === TOKEN_METADATA));

  it('they exist, and Token Metadata is invoked there with BubblegumSetCollectionSize (36) only', () => {
    expect(withTm.length).toBeGreaterThan(0);
    for (const tx of withTm)
      for (const ix of walkTransaction(tx)) if (ix.programId === TOKEN_METADATA) expect(ix.data[0]).toBe(36);
  });

  it('stay COMPRESSED_NFT_MINT from BUBBLEGUM, without an nft event', () => {
    for (const tx of withTm) {
      const e = classifyTransaction(tx, parseTransaction(tx));
      expect([e.type, e.source], tx.signature).toEqual(['COMPRESSED_NFT_MINT', 'BUBBLEGUM']);
      expect(e.events.nft).toBeUndefined();
    }
  });
});
