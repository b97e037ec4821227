/**
 * `helius-sdk` v3 pointed at solgate's one URL (`createHelius({ apiKey, baseUrl })`), unmodified, on the localnet:
 * standard Solana calls (forwarded to the cluster), the RPC extensions getTransactionsForAddress and
 * getPriorityFeeEstimate (from the index), DAS, and the Sender (`tx.sendTransactionWithSender`), each answer checked
 * against the chain or the index. (The SDK's enhanced-transactions client ignores `baseUrl` — it always calls
 * Helius's own REST host — so it cannot be pointed at solgate; `/v0/addresses/{address}/transactions` is tested over
 * HTTP in test/api.)
 *
 * The SDK's Sender functions do not use `baseUrl` either: they post to `${SENDER_ENDPOINTS[region]}/fast`. That table
 * is exported (`helius-sdk/transactions/types`) as a plain, unfrozen object read at each send, so the app points a
 * region at solgate by assigning its entry; the test does exactly that.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHelius } from 'helius-sdk';
import { SENDER_ENDPOINTS, SENDER_TIP_ACCOUNTS, senderPingUrl } from 'helius-sdk/transactions/types';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { createUpstreamRpc, type UpstreamRpc } from '../../src/sources/upstream-rpc.js';
import { createRouter, type Router } from '../../src/sender/router.js';
import { DEFAULT_TIP_ACCOUNTS } from '../../src/sender/validate.js';
import { fundTipAccounts } from '../../src/cli/serve-demo.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/net.js';
import { ingestUntil, localnetSender, type LocalnetSender } from '../localnet/helpers.js';

// helius-sdk 3.2 is built against @solana/kit 6; its compute-unit estimate (sendTransactionWithSender simulates the
// draft) imports `estimateComputeUnitLimitFactory`, which kit 8 (this project's, shared with the SDK through the
// package.json override) no longer exports. The same estimator ships in @solana-program/compute-budget, so it is
// supplied from there (as in test/sender/sender.test.ts); an app on the SDK's own kit 6 needs nothing of the kind.
vi.mock('@solana/kit', async (importOriginal) => {
  const kit = await importOriginal<typeof import('@solana/kit')>();
  const { estimateComputeUnitLimitFactory } = await import('@solana-program/compute-budget');
  return { ...kit, estimateComputeUnitLimitFactory };
});

let net: Localnet;
let upstream: UpstreamRpc;
let ta: TestApp;
let helius: ReturnType<typeof createHelius>;
let A: KeyPairSigner, B: KeyPairSigner;
const sent: string[] = [];
let chain: LocalnetSender;
let solgateUrl: string;
let router: Router;
/** Signatures solgate's Sender admitted and routed (what reached `/fast` and passed its checks). */
const routed: string[] = [];

beforeAll(async () => {
  net = await createLocalnet({ port: 0, slotMs: 0 });
  const sender = (chain = localnetSender(net));
  [A, B] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
  sent.push((await sender.airdrop(A.address, 5_000_000_000n)).signature);
  for (const price of [10_000n, 30_000n])
    sent.push((await sender.send(A, [getSetComputeUnitPriceInstruction({ microLamports: price }), getTransferSolInstruction({ source: A, destination: B.address, amount: 1_000_000_000n })])).signature);
  // The Sender's one path is the localnet (as `solgate serve` does with SOLANA_RPC_URL and no SOLGATE_SENDER_RPC_URLS).
  const base = createRouter({ rpcUrls: [net.url], blockEngineUrl: null, statusUrl: net.url, upstreamTimeoutMs: 2000, rebroadcastMs: 100, maxRebroadcastMs: 5000 });
  router = {
    submit: (tx, swqosOnly) => {
      routed.push(tx.signature);
      return base.submit(tx, swqosOnly);
    },
    status: (body) => base.status(body),
    get tracked() {
      return base.tracked;
    },
    close: () => base.close(),
  };
  ta = await createTestApp({
    upstreamRpc: (upstream = createUpstreamRpc({ url: net.url })),
    sender: { router, policy: { tipAccounts: DEFAULT_TIP_ACCOUNTS, minTipLamports: 200_000n, minTipSwqosLamports: 5_000n }, rateLimitPerSecond: 50 },
  });
  await ingestUntil(ta.t.db, net.url, net.chain.produceSlot()!.slot);
  const port = await freePort();
  await ta.app.listen({ port, host: '127.0.0.1' });
  solgateUrl = `http://127.0.0.1:${port}`;
  helius = createHelius({ apiKey: ta.key, baseUrl: `${solgateUrl}/` });
});

afterAll(async () => {
  await ta?.close();
  await router?.close();
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

  it('Sender: tx.sendTransactionWithSender with its region pointed at solgate lands the transfer', async () => {
    // Tip accounts exist on mainnet; on the localnet they are funded first (as `serve --demo` does), and the SDK's
    // list is the one solgate admits by default.
    expect([...SENDER_TIP_ACCOUNTS].sort()).toEqual([...DEFAULT_TIP_ACCOUNTS].sort());
    await fundTipAccounts(net.url, DEFAULT_TIP_ACCOUNTS);
    const C = await generateKeyPairSigner();
    const D = await generateKeyPairSigner();
    await chain.airdrop(C.address, 2_000_000_000n);
    const tipBalances = async () => {
      const { value } = await (helius.getMultipleAccounts(DEFAULT_TIP_ACCOUNTS as never) as unknown as Promise<{ value: { lamports: bigint }[] }>);
      return value.reduce((sum, a) => sum + a.lamports, 0n);
    };
    const tipsBefore = await tipBalances();

    // What an app does: the SDK's types mark the entries readonly, the object itself is not frozen.
    const endpoints = SENDER_ENDPOINTS as Record<string, string>;
    const original = endpoints.Default;
    endpoints.Default = solgateUrl;
    // The localnet makes slots on demand; the SDK polls the signature status (through baseUrl) until confirmed.
    const producer = setInterval(() => net.chain.produceSlot(), 100);
    try {
      expect(senderPingUrl('Default')).toBe(`${solgateUrl}/ping`);
      expect(await (await fetch(senderPingUrl('Default'))).text()).toBe('ok');
      // tipAmount given: without it the SDK first asks bundles.jito.wtf for the tip floor (off the machine).
      const sig = await helius.tx.sendTransactionWithSender({
        region: 'Default', signers: [C], instructions: [getTransferSolInstruction({ source: C, destination: D.address, amount: 300_000_000n })],
        tipAmount: 1_000_000, pollTimeoutMs: 15_000, pollIntervalMs: 100,
      });
      expect(routed).toEqual([sig]);
      const { value: [status] } = await (helius.getSignatureStatuses([sig as never]) as unknown as Promise<{ value: { err: unknown; confirmationStatus: string }[] }>);
      expect(status).toMatchObject({ err: null, confirmationStatus: expect.stringMatching(/^(confirmed|finalized)$/) });
    } finally {
      clearInterval(producer);
      endpoints.Default = original;
    }
    expect(await (helius.getBalance(D.address) as unknown as Promise<{ value: bigint }>)).toMatchObject({ value: 300_000_000n });
    expect(await chain.rpc<{ value: number }>('getBalance', [D.address])).toMatchObject({ value: 300_000_000 });
    expect((await tipBalances()) - tipsBefore).toBe(1_000_000n);
  }, 30_000);
});
