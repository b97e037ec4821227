/**
 * End to end, live mode: a Token-2022 mint with the MetadataPointer + TokenMetadata extensions is created and then
 * updated on the localnet; the RPC poller + ingester index it over JSON-RPC; DAS `getAsset` must show the mint's
 * current on-chain metadata. The update transaction carries only the changed field, so the complete name/symbol/
 * uri/additional metadata after it exist only in the mint account: they arrive through the account fetch after
 * each block, and are absent when fetching is turned off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import * as t22 from '@solana-program/token-2022';
import { createRpcPoller } from '../../src/sources/rpc-poller.js';
import { createIngester } from '../../src/ingest/pipeline.js';
import { getCheckpoint } from '../../src/store/chain.js';
import type { Localnet } from '../../src/sources/localnet/index.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { fundedLocalnet, sendTx, type RpcClient } from '../localnet/helpers.js';

const NAME = 'Solgate Live';
const SYMBOL = 'SGL';
const URI = 'https://example.com/sgl.json';

let net: Localnet;
let rpc: RpcClient;
let payer: KeyPairSigner;
let mint: Address;
let lastSlot: number;

async function getAsset(ta: TestApp, id: string): Promise<any> {
  const r = await ta.app.inject({ method: 'POST', url: `/?api-key=${ta.key}`, payload: { jsonrpc: '2.0', id: 1, method: 'getAsset', params: { id } } });
  const body = r.json();
  expect(body.error, JSON.stringify(body.error)).toBeUndefined();
  return body.result;
}

/** Indexes the localnet from slot 0 to `lastSlot` through the RPC poller into a fresh database. */
async function ingest(fetchAccounts: boolean): Promise<{ ta: TestApp; accountsFetched: number }> {
  const ta = await createTestApp();
  const poller = createRpcPoller({ url: net.url, pollIntervalMs: 20, concurrency: 4, fetchAccounts, backoffBaseMs: 5 });
  const ingester = createIngester(ta.t.db, pino({ level: 'silent' }));
  const ctl = new AbortController();
  const run = ingester.run(poller, { startSlot: 0, signal: ctl.signal });
  const deadline = Date.now() + 60_000;
  try {
    while (((await getCheckpoint(ta.t.db)) ?? -1) < lastSlot) {
      if (Date.now() > deadline) throw new Error('ingestion did not reach the last slot');
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    ctl.abort();
    await run;
    await poller.close();
  }
  return { ta, accountsFetched: poller.stats.accountsFetched };
}

beforeAll(async () => {
  ({ net, rpc, payer } = await fundedLocalnet(10_000_000_000));
  const mintSigner = await generateKeyPairSigner();
  mint = mintSigner.address;
  const extensions = [t22.extension('MetadataPointer', { authority: payer.address, metadataAddress: mint })];
  const initial = { updateAuthority: payer.address, mint, name: NAME, symbol: SYMBOL, uri: URI };
  const final = t22.extension('TokenMetadata', { ...initial, additionalMetadata: new Map([['edition', 'first']]) });
  // Rent for the size after the update (token-metadata reallocates), space for the fixed-size extensions only.
  const rent = BigInt(await rpc.call('getMinimumBalanceForRentExemption', [t22.getMintSize([...extensions, final])]));
  const created = await sendTx(rpc, payer, [
    getCreateAccountInstruction({ payer, newAccount: mintSigner, lamports: rent, space: t22.getMintSize(extensions), programAddress: t22.TOKEN_2022_PROGRAM_ADDRESS }),
    ...t22.getPreInitializeInstructionsForMintExtensions(mint, extensions),
    t22.getInitializeMintInstruction({ mint, decimals: 0, mintAuthority: payer.address }),
    ...t22.getPostInitializeInstructionsForMintExtensions(mint, payer, [t22.extension('TokenMetadata', { ...initial, additionalMetadata: new Map() })]),
  ]);
  expect(created.reply.error).toBeUndefined();
  net.chain.produceSlot();
  const updated = await sendTx(rpc, payer, [
    t22.getUpdateTokenMetadataFieldInstruction({ metadata: mint, updateAuthority: payer, field: t22.tokenMetadataField('Key', ['edition']), value: 'first' }),
  ]);
  expect(updated.reply.error).toBeUndefined();
  lastSlot = net.chain.produceSlot()!.slot;
  net.chain.produceSlot();
}, 60_000);
afterAll(async () => net?.close());

describe('live account fetch → DAS', () => {
  it('getAsset shows the token-metadata extension of the fetched mint account', async () => {
    const { ta, accountsFetched } = await ingest(true);
    try {
      expect(accountsFetched).toBeGreaterThanOrEqual(2); // the mint, after each of its two blocks
      const asset = await getAsset(ta, mint);
      expect(asset.id).toBe(mint);
      expect(asset.interface).toBe('FungibleToken');
      expect(asset.content.metadata).toEqual({ name: NAME, symbol: SYMBOL });
      expect(asset.content.json_uri).toBe(URI);
      expect(asset.mint_extensions.metadata).toEqual({
        name: NAME, symbol: SYMBOL, uri: URI, mint, update_authority: payer.address, additional_metadata: [['edition', 'first']],
      });
      expect(asset.mint_extensions.metadata_pointer).toEqual({ metadata_address: mint });
    } finally {
      await ta.close();
    }
  });

  it('with fetching off, the mint account state is not there (only what the transactions say)', async () => {
    const { ta, accountsFetched } = await ingest(false);
    try {
      expect(accountsFetched).toBe(0);
      const asset = await getAsset(ta, mint);
      expect(asset.id).toBe(mint);
      // The newest transaction-derived token-metadata row is the update's single field: no name/symbol/uri.
      expect(asset.content.metadata.name).not.toBe(NAME);
      expect(asset.content.metadata.symbol).not.toBe(SYMBOL);
      expect(asset.content.json_uri).not.toBe(URI);
      expect(asset.mint_extensions.metadata.additional_metadata).not.toEqual([['edition', 'first']]);
    } finally {
      await ta.close();
    }
  });
});
