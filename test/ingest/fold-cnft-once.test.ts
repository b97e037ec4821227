/**
 * foldWithCnft parses each Bubblegum transaction once and hands its events to the fold's classification
 * (`cnftEventsByTx`): the update is the one of a fold that lets classification parse every transaction itself.
 */
import { describe, expect, it } from 'vitest';
import { emptyContext, foldBlock } from '../../src/ingest/fold-block.js';
import { cnftRows } from '../../src/ingest/fold-cnft.js';
import { foldWithCnft } from '../../src/ingest/pipeline-prepare.js';
import { BUBBLEGUM_PROGRAM, parseBubblegumTransaction } from '../../src/parsers/bubblegum/index.js';
// A mainnet block with compressed-NFT mints among swaps and transfers.
import { loadMainnetBlock } from '../helpers/mainnet-block.js';

describe('foldWithCnft', () => {
  it('gives the update of a fold whose classification parses Bubblegum itself, plus the same cNFT rows', async () => {
    const { block, parsed } = await loadMainnetBlock();
    const bubblegum = parsed.filter(({ tx }) => tx.accountKeys.includes(BUBBLEGUM_PROGRAM));
    expect(bubblegum.length).toBeGreaterThan(0);
    const expected = foldBlock(block, parsed, emptyContext());
    const cnft = cnftRows(bubblegum.map(({ tx }) => ({ tx, events: parseBubblegumTransaction(tx) })));
    expected.cnftAssets.push(...cnft.assets);
    expected.cnftNodes.push(...cnft.nodes);
    expected.cnftSignatures.push(...cnft.signatures);
    expect(expected.cnftAssets.length).toBeGreaterThan(0);
    expect(foldWithCnft(block, parsed, emptyContext())).toEqual(expected);
  });

  it("classifies with the events it is given for a transaction (the caller's parse), not a parse of its own", async () => {
    const { block, parsed } = await loadMainnetBlock();
    const bubblegum = new Set(parsed.filter(({ tx }) => tx.accountKeys.includes(BUBBLEGUM_PROGRAM)).map(({ tx }) => tx));
    const types = (u: ReturnType<typeof foldBlock>) => u.transactions.filter((t) => [...bubblegum].some((tx) => tx.signature === t.signature)).map((t) => t.enhancedType);
    const own = types(foldBlock(block, parsed, emptyContext()));
    // Given no Bubblegum events at all, the cNFT mints are no longer classified as such.
    const none = types(foldBlock(block, parsed, { ...emptyContext(), cnftEventsByTx: new Map([...bubblegum].map((tx) => [tx, []])) }));
    expect(own).toContain('COMPRESSED_NFT_MINT');
    expect(none).not.toContain('COMPRESSED_NFT_MINT');
  });
});
