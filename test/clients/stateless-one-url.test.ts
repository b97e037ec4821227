/**
 * `@lightprotocol/stateless.js` with `createRpc(solgate, solgate)` — one URL for the standard calls and the ZK
 * Compression ones — on the localnet with the Light programs, while solgate ingests it live: `compress` SOL into a
 * V2 tree and `transfer` it to another owner (a by-index spend of a queued account, which needs no prover). Every
 * call the client makes (send, confirm, getIndexerSlot, getCompressedAccountsByOwner, getValidityProof) goes through
 * solgate; the balances it reads back equal what was moved.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { Keypair, LAMPORTS_PER_SOL } from '@solana/web3.js';
import { bn, compress, createRpc, selectStateTreeInfo, transfer, type Rpc } from '@lightprotocol/stateless.js';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { createUpstreamRpc, type UpstreamRpc } from '../../src/sources/upstream-rpc.js';
import { createUpstreamSocketFactory } from '../../src/sources/upstream-ws.js';
import { createRpcPoller, fetchAccounts } from '../../src/sources/rpc-poller.js';
import { createIngester } from '../../src/ingest/pipeline.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/net.js';

let net: Localnet;
let upstream: UpstreamRpc;
let ta: TestApp;
let rpc: Rpc;
const ctl = new AbortController();
let ingesting: Promise<void>;

beforeAll(async () => {
  net = await createLocalnet({ slotMs: 100, light: true });
  upstream = createUpstreamRpc({ url: net.url });
  ta = await createTestApp({ upstreamRpc: upstream, pubsub: { upstream: createUpstreamSocketFactory(net.wsUrl) } });
  const logger = pino({ level: 'silent' });
  const ingester = createIngester(ta.t.db, logger, { fetchAccounts: (keys) => fetchAccounts(net.url, keys, { commitment: 'confirmed' }) });
  const poller = createRpcPoller({ url: net.url, commitment: 'confirmed', concurrency: 4, pollIntervalMs: 20, fetchAccounts: true, logger });
  ingesting = ingester.run(poller, { startSlot: 0, signal: ctl.signal }).finally(() => poller.close());
  const port = await freePort();
  await ta.app.listen({ port, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${port}/?api-key=${ta.key}`;
  // web3.js (under stateless.js) would look for the WebSocket at port + 1 of an explicit port: give it solgate's.
  rpc = createRpc(url, url, undefined, { commitment: 'confirmed', wsEndpoint: `ws://127.0.0.1:${port}/?api-key=${ta.key}` });
}, 60_000);

afterAll(async () => {
  ctl.abort();
  await ingesting?.catch(() => {});
  await ta?.close();
  await upstream?.close();
  await net?.close();
});

describe('stateless.js createRpc(solgate, solgate)', () => {
  it('compresses SOL and transfers it, reading everything back through solgate', async () => {
    const payer = Keypair.generate();
    const bob = Keypair.generate();
    const sig = await rpc.requestAirdrop(payer.publicKey, 5 * LAMPORTS_PER_SOL);
    await rpc.confirmTransaction(sig, 'confirmed');
    const trees = await rpc.getStateTreeInfos();
    const v2 = trees.filter((t) => t.treeType === 3 /* StateV2 */);
    const info = selectStateTreeInfo(v2.length ? v2 : trees);
    // stateless.js waits for confirmationStatus to equal the commitment exactly; the localnet's blocks are final at
    // once (docs/operations.md), so the client is asked for `finalized`.
    const finalized = { commitment: 'finalized' as const };
    await compress(rpc, payer, bn(2 * LAMPORTS_PER_SOL), payer.publicKey, info, finalized);
    expect((await rpc.getCompressedBalanceByOwner(payer.publicKey)).toNumber()).toBe(2 * LAMPORTS_PER_SOL);
    await transfer(rpc, payer, bn(LAMPORTS_PER_SOL / 2), payer, bob.publicKey, finalized);
    expect((await rpc.getCompressedBalanceByOwner(bob.publicKey)).toNumber()).toBe(LAMPORTS_PER_SOL / 2);
    expect((await rpc.getCompressedBalanceByOwner(payer.publicKey)).toNumber()).toBe(1.5 * LAMPORTS_PER_SOL);
  }, 120_000);
});
