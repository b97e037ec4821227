/**
 * A recorded Magic Eden v2 buy-now (deposit + buy + execute_sale_v2) against the reference's own enhanced answer for
 * the same transaction, both published on the reference's webhooks documentation page (test/fixtures/enhanced).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, loadRecorded, signaturesVerify } from './recorded.js';

const reference = JSON.parse(readFileSync(join(FIXTURES, 'magic-eden-v2-sale.reference.json'), 'utf8'));
const NFT_NAME = 'Fox #7637'; // the NFT's name as the reference prints it (from its metadata, which a transaction does not carry)
const { raw, e } = loadRecorded('magic-eden-v2-sale.json', { tokenLabel: (mint) => (mint === 'FdsNQE5EeCe57tbEYCRV1JwW5dzNCof7MUTaGWhmzYqu' ? NFT_NAME : null) });

describe('Magic Eden v2 sale (recorded mainnet transaction)', () => {
  it('is the signed transaction the reference published', () => expect(signaturesVerify(raw)).toBe(true));

  it('is an NFT_SALE from MAGIC_EDEN with the reference description', () => {
    expect([e.type, e.source]).toEqual([reference.type, reference.source]);
    expect(e.description).toBe(reference.description);
    expect([e.signature, e.slot, e.timestamp, e.fee, e.feePayer]).toEqual([reference.signature, reference.slot, reference.timestamp, reference.fee, reference.feePayer]);
  });

  it('events.nft: price, buyer, seller, sale type and NFT as the reference states them', () => {
    expect(e.events.nft).toEqual(reference.events.nft);
  });

  it('the price is the one the program logged for the sale', () => {
    const logs = (raw as unknown as { meta: { logMessages: string[] } }).meta.logMessages;
    const sale = logs.find((l) => l.includes('seller_expiry')) ?? '';
    expect(e.events.nft?.amount).toBe(Number(/"price":(\d+)/.exec(sale)?.[1]));
  });

  it('token and native transfers as the reference lists them', () => {
    expect(e.tokenTransfers).toEqual(reference.tokenTransfers);
    expect(e.nativeTransfers).toEqual(reference.nativeTransfers);
  });
});
