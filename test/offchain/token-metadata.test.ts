/**
 * POST /v0/token-metadata end to end through the app: a Token Metadata NFT ingested from the DAS fixtures
 * (replay of test/fixtures/das/decoded), request validation in the REST error format, and the off-chain section
 * from the database and from the real fetcher against a local server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { applyInputs, loadCases } from '../das/harness.js';
import { getOffchainEntries, recordSuccess } from '../../src/store/offchain.js';
import type { OffchainFetcher } from '../../src/offchain/fetcher.js';
import type { ApiDeps } from '../../src/api/deps.js';
import type { TokenMetadataDeps } from '../../src/api/rest/token-metadata.js';
import { localFetcher, startDocServer, type DocServer } from './local-fetcher.js';

const CASE = loadCases().find((c) => c.id === 'asset_parsing')!;
const MINT = (CASE.params as { id: string }).id; // 843gdpsTE4DoJz3ZoBsEjAqT8UgAcyF5YojygGgGZE1f
const URI = 'https://nftstorage.link/ipfs/bafybeihaky4htq6obur3ziksyanpdoqmrnefben3dbecddru52xh2sdkii/1232.json';
const UNKNOWN = 'So11111111111111111111111111111111111111112';
const DOC = {
  name: 'Phantom Mage #1233',
  symbol: 'PM',
  description: 'A mage.',
  seller_fee_basis_points: 555,
  image: 'https://nftstorage.link/ipfs/bafy/1232.png',
  attributes: [{ trait_type: 'Class', value: 'Mage' }],
  properties: { category: 'image', files: [{ uri: 'https://nftstorage.link/ipfs/bafy/1232.png', type: 'image/png' }], creators: [{ address: 'HmkCMBPdY6MixHP8hxsM8G1UwJH3fBN2itWagnYoXASR', share: 100 }] },
};
const CAMEL_DOC = {
  name: 'Phantom Mage #1233',
  symbol: 'PM',
  description: 'A mage.',
  sellerFeeBasisPoints: 555,
  image: 'https://nftstorage.link/ipfs/bafy/1232.png',
  attributes: [{ traitType: 'Class', value: 'Mage' }],
  properties: { category: 'image', files: [{ uri: 'https://nftstorage.link/ipfs/bafy/1232.png', type: 'image/png' }], creators: [{ address: 'HmkCMBPdY6MixHP8hxsM8G1UwJH3fBN2itWagnYoXASR', share: 100 }] },
};

async function post(ta: TestApp, payload: unknown, key: string | null = ta.key) {
  const r = await ta.app.inject({
    method: 'POST',
    url: key === null ? '/v0/token-metadata' : `/v0/token-metadata?api-key=${key}`,
    payload: payload as Record<string, unknown>,
  });
  return { status: r.statusCode, body: r.json(), raw: r.body };
}

describe('POST /v0/token-metadata (database only)', () => {
  let ta: TestApp;
  beforeAll(async () => {
    ta = await createTestApp();
    await applyInputs(ta, CASE.inputs);
  });
  afterAll(async () => ta?.close());

  it('needs an API key', async () => {
    const r = await post(ta, { mintAccounts: [MINT] }, null);
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ code: 401, error: expect.any(String) });
  });

  it('rejects bad bodies with 400 in the REST error format', async () => {
    const valid = Array.from({ length: 101 }, () => MINT);
    const bad: [unknown, RegExp][] = [
      [{}, /mintAccounts/],
      [{ mintAccounts: MINT }, /mintAccounts/],
      [{ mintAccounts: [] }, /must not be empty/],
      [{ mintAccounts: valid }, /Too many mintAccounts/],
      [{ mintAccounts: [MINT, 'not-a-pubkey'] }, /Invalid mint account/],
      [{ mintAccounts: ['1111111111111111111111111111111'] }, /Invalid mint account/], // 31 bytes
      [{ mintAccounts: [MINT], includeOffChain: 'maybe' }, /includeOffChain/],
      [{ mintAccounts: [42] }, /Invalid mint account '42'/], // the schema coerces scalars to strings
    ];
    for (const [payload, re] of bad) {
      const r = await post(ta, payload);
      expect(r.status, JSON.stringify(payload).slice(0, 80)).toBe(400);
      expect(r.body.code).toBe(400);
      expect(`${r.body.error} ${r.body.details ?? ''}`).toMatch(re);
    }
    const tooMany = await post(ta, { mintAccounts: valid });
    expect(tooMany.body.details).toBe('at most 100 mint accounts per request, got 101');
    const notJson = await ta.app.inject({ method: 'POST', url: `/v0/token-metadata?api-key=${ta.key}`, headers: { 'content-type': 'application/json' }, payload: '{"mintAccounts": [' });
    expect(notJson.statusCode).toBe(400);
    expect(notJson.json().code).toBe(400);
  });

  it('answers one entry per mint, in order, with the on-chain sections', async () => {
    const r = await post(ta, { mintAccounts: [MINT, UNKNOWN, MINT] });
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(3);
    expect(r.body.map((e: { account: string }) => e.account)).toEqual([MINT, UNKNOWN, MINT]);
    const [e, unknown] = r.body;
    expect(e).toEqual({
      account: MINT,
      onChainAccountInfo: {
        accountInfo: {
          key: MINT,
          isSigner: false,
          isWritable: false,
          lamports: 1461600,
          data: {
            parsed: {
              info: {
                decimals: 0,
                freezeAuthority: 'BBxbujpLmQgqwu9p1t2S2AZrXuTGBiaUg3M7PUjuBExh',
                isInitialized: true,
                mintAuthority: 'BBxbujpLmQgqwu9p1t2S2AZrXuTGBiaUg3M7PUjuBExh',
                supply: '1',
              },
              type: 'mint',
            },
            program: 'spl-token',
            space: 82,
          },
          owner: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
          executable: false,
          rentEpoch: 18446744073709551615,
        },
        error: '',
      },
      onChainMetadata: {
        metadata: {
          key: 'MetadataV1',
          mint: MINT,
          updateAuthority: 'GMhP98kXvfziKNfq1nP99AbWtZAweLu3DFz5Vs5ZaVTy',
          data: {
            name: 'Phantom Mage #1233',
            symbol: 'PM',
            uri: URI,
            sellerFeeBasisPoints: 555,
            creators: [
              { address: '5KtTmcxYYzK5mR7gEtjVX2eBBK1g7YjVbvsMBAbyf9uK', share: 0, verified: true },
              { address: 'HmkCMBPdY6MixHP8hxsM8G1UwJH3fBN2itWagnYoXASR', share: 100, verified: false },
            ],
          },
          tokenStandard: 'ProgrammableNonFungible',
          primarySaleHappened: false,
          isMutable: true,
          editionNonce: 253,
          collection: null,
          collectionDetails: null,
          uses: null,
        },
        error: '',
      },
      legacyMetadata: null,
    });
    // u64::MAX is written with all its digits.
    expect(r.raw).toContain('"rentEpoch":18446744073709551615');
    expect(unknown.onChainAccountInfo.accountInfo).toBeNull();
    expect(unknown.onChainAccountInfo.error).toMatch(/not found/);
    expect(unknown.onChainMetadata).toEqual({ metadata: null, error: expect.stringMatching(/no Token Metadata account/) });
    expect(unknown).not.toHaveProperty('offChainMetadata');
    expect(r.body[2]).toEqual(e);
  });

  it('accepts exactly 100 mints', async () => {
    const r = await post(ta, { mintAccounts: Array.from({ length: 100 }, (_, i) => (i % 2 ? MINT : UNKNOWN)) });
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(100);
  });

  it('legacyMetadata comes from the token registry', async () => {
    ta.tokens.set(MINT, { symbol: 'PM', name: 'Phantom Mage', logoUri: 'https://x.test/pm.png' });
    const r = await post(ta, { mintAccounts: [MINT] });
    expect(r.body[0].legacyMetadata).toEqual({
      chainId: 101,
      address: MINT,
      symbol: 'PM',
      name: 'Phantom Mage',
      decimals: 0,
      logoURI: 'https://x.test/pm.png',
      tags: [],
      extensions: {},
    });
    ta.tokens.delete(MINT);
  });

  it('includeOffChain without a fetcher: stored documents are served, missing ones queued', async () => {
    let r = await post(ta, { mintAccounts: [MINT, UNKNOWN], includeOffChain: true });
    expect(r.body[0].offChainMetadata).toEqual({ metadata: null, uri: URI, error: 'off-chain metadata not fetched yet' });
    expect(r.body[1].offChainMetadata).toEqual({ metadata: null, uri: '', error: expect.stringMatching(/no on-chain metadata/) });
    expect((await getOffchainEntries(ta.t.db, [URI])).get(URI)).toMatchObject({ status: 'pending', attempts: 0 });

    await recordSuccess(ta.t.db, URI, null, DOC, null);
    r = await post(ta, { mintAccounts: [MINT], includeOffChain: true });
    expect(r.body[0].offChainMetadata).toEqual({ metadata: CAMEL_DOC, uri: URI, error: '' });
    expect(Object.keys(r.body[0])).toEqual(['account', 'onChainAccountInfo', 'onChainMetadata', 'offChainMetadata', 'legacyMetadata']);
  });
});

describe('POST /v0/token-metadata with the fetcher', () => {
  let ta: TestApp;
  let server: DocServer;
  let hits = 0;
  let body = JSON.stringify(DOC);
  let status = 200;
  let fetcher: OffchainFetcher | null = null;

  beforeAll(async () => {
    server = await startDocServer((req, res) => {
      hits++;
      res.statusCode = status;
      res.setHeader('content-type', 'application/json');
      res.end(req.url === new URL(URI).pathname ? body : '{}');
    });
    // The app reads `offchain` from its deps; the fetcher needs the app's database, so the deps get a
    // forwarder to the real fetcher created right after.
    const offchain: TokenMetadataDeps['offchain'] = { fetchNow: (uri, o) => fetcher!.fetchNow(uri, o) };
    ta = await createTestApp({ offchain } as Partial<ApiDeps>);
    // The fixture's host is routed to the local server (the SSRF guard still checks the rewritten target).
    fetcher = localFetcher(ta.t.db, (u) => (u.hostname === 'nftstorage.link' ? `${server.base}${u.pathname}` : u));
    await applyInputs(ta, CASE.inputs);
  });
  afterAll(async () => {
    await fetcher?.stop();
    await ta?.close();
    await server?.close();
  });

  it('fetches a missing document now, serves it from the cache next, and refetches with disableCache', async () => {
    let r = await post(ta, { mintAccounts: [MINT, MINT], includeOffChain: true });
    expect(r.status).toBe(200);
    expect(hits).toBe(1); // one uri, fetched once
    expect(r.body[0].offChainMetadata).toEqual({ metadata: CAMEL_DOC, uri: URI, error: '' });
    expect(r.body[1].offChainMetadata).toEqual(r.body[0].offChainMetadata);

    body = JSON.stringify({ ...DOC, description: 'Changed.' });
    r = await post(ta, { mintAccounts: [MINT], includeOffChain: true });
    expect(hits).toBe(1);
    expect(r.body[0].offChainMetadata.metadata.description).toBe('A mage.');

    r = await post(ta, { mintAccounts: [MINT], includeOffChain: true, disableCache: true });
    expect(hits).toBe(2);
    expect(r.body[0].offChainMetadata.metadata.description).toBe('Changed.');
    expect((await getOffchainEntries(ta.t.db, [URI])).get(URI)?.content).toMatchObject({ description: 'Changed.' });

    // A refetch that fails keeps serving the last good document.
    status = 500;
    r = await post(ta, { mintAccounts: [MINT], includeOffChain: true, disableCache: true });
    expect(hits).toBe(3);
    expect(r.body[0].offChainMetadata).toMatchObject({ uri: URI, error: '', metadata: { description: 'Changed.' } });
    status = 200;
  });

  it('includeOffChain false never fetches', async () => {
    const before = hits;
    const r = await post(ta, { mintAccounts: [MINT], disableCache: true });
    expect(r.body[0]).not.toHaveProperty('offChainMetadata');
    expect(hits).toBe(before);
  });
});
