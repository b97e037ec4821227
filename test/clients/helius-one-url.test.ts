/**
 * `helius-sdk` v3 pointed at solgate's one URL (`createHelius({ apiKey, baseUrl })`), unmodified, on the localnet:
 * standard Solana calls (forwarded to the cluster), the RPC extensions getTransactionsForAddress and
 * getPriorityFeeEstimate (from the index) and DAS, each answer checked against the chain or the index. (The SDK's
 * enhanced-transactions client ignores `baseUrl` — it always calls Helius's own REST host — so it cannot be pointed
 * at solgate; `/v0/addresses/{address}/transactions` is tested over HTTP in test/api.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHelius } from 'helius-sdk';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { createUpstreamRpc, type UpstreamRpc } from '../../src/sources/upstream-rpc.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/net.js';
import { ingestUntil, localnetSender } from '../localnet/helpers.js';

let net: Localnet;
let upstream: UpstreamRpc;
let ta: TestApp;
let helius: ReturnType<typeof createHelius>;
let A: KeyPairSigner, B: KeyPairSigner;
const sent: string[] = [];

beforeAll(async () => {
  net = await createLocalnet({ port: 0, slotMs: 0 });
  const sender = localnetSender(net);
  [A, B] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
  sent.push((await sender.airdrop(A.address, 5_000_000_000n)).signature);
  for (const price of [10_000n, 30_000n])
    sent.push((await sender.send(A, [getSetComputeUnitPriceInstruction({ microLamports: price }), getTransferSolInstruction({ source: A, destination: B.address, amount: 1_000_000_000n })])).signature);
  await ingestUntil((ta = await createTestApp({ upstreamRpc: (upstream = createUpstreamRpc({ url: net.url })) })).t.db, net.url, net.chain.produceSlot()!.slot);
  const port = await freePort();
  await ta.app.listen({ port, host: '127.0.0.1' });
  helius = createHelius({ apiKey: ta.key, baseUrl: `http://127.0.0.1:${port}/` });
});

afterAll(async () => {
  await ta?.close();
  await upstream?.close();
  await net?.close();
});

describe('helius-sdk with baseUrl = solgate', () => {
  it('standard calls are the cluster\'s answers', async () => {
    // This SDK version's proxy sends standard calls itself (a promise of the result, no `.send()`).
    const call = (p: unknown) => p as Promise<any>;
    expect(await call(helius.getBalance(B.address))).toMatchObject({ value: 2_000_000_000n });
    expect(await call(helius.getSlot())).toBeGreaterThan(0n);
    const { value } = await call(helius.getLatestBlockhash());
    expect(typeof value.blockhash).toBe('string');
  });

  it('getTransactionsForAddress lists the address\'s transactions, newest first', async () => {
    const r = await helius.getTransactionsForAddress([A.address, { limit: 10 }]);
    expect(r.data.map((x: { signature: string }) => x.signature)).toEqual([...sent].reverse());
    expect(r.paginationToken).toBeNull();
  });

  it('getPriorityFeeEstimate answers from the indexed prices', async () => {
    const r = await helius.getPriorityFeeEstimate({ accountKeys: [B.address], options: { includeAllPriorityFeeLevels: true } });
    expect(r.priorityFeeLevels?.unsafeMax).toBe(30_000);
    expect(r.priorityFeeLevels?.min).toBe(0);
  });

  it('DAS through the same client', async () => {
    const r = await helius.getAssetsByOwner({ ownerAddress: A.address });
    expect(r).toMatchObject({ total: 0, items: [] });
  });
});
