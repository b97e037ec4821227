/**
 * Sender: the gateway's own work per `POST /fast`, without the localnet and without process switches — the part of
 * bench/sender's "added over direct" that the gateway's code decides. In ONE process: a stub upstream (node:http,
 * answers every sendTransaction at once), the Sender routes (`senderApi`, the same plugins as `solgate sender`: the
 * JSON parser and CORS) on a Fastify listening on loopback, and the client (undici, one keep-alive connection per
 * path). Requests alternate between `/fast` through the gateway and the same body posted to the stub directly; the
 * added p50 is gateway minus direct. Then the admission alone (`admitTransaction`: decoding, ed25519 verification of
 * every signature, priority fee and tip checks) and the verification alone, per call. A measurement: it never asserts.
 *
 *   npm run bench -- sender-hop [--txs 4000] [--warmup 500]
 *
 * bench/sender measures the whole hop between processes (client, `solgate sender`, localnet) on the same cores;
 * what it adds beyond this figure is scheduling between processes.
 */
import http from 'node:http';
import { loadavg } from 'node:os';
import Fastify from 'fastify';
import { Pool } from 'undici';
import { generateKeyPairSigner } from '@solana/kit';
import { createRouter } from '../src/sender/router.js';
import { senderApi } from '../src/sender/routes.js';
import { ed25519Implementation, verifyEd25519, verifyOpenSsl } from '../src/core/ed25519.js';
import { admitTransaction, DEFAULT_TIP_ACCOUNTS, type TipPolicy } from '../src/sender/validate.js';
import { registerJsonParser } from '../src/api/plugins/json-body.js';
import { registerCors } from '../src/api/plugins/cors.js';
import { TippedTxFactory, type SetupRpc } from './gen/sender-txs.js';
import { numberFlag, parseFlags } from './lib/args.js';
import { table, writeResult } from './lib/report.js';
import { percentiles } from './lib/samples.js';

export const description = "Sender: the gateway's own added latency per POST /fast (in one process, stub upstream), with admission and ed25519 verification per call";
export const onlyWhenNamed = true;

const POLICY: TipPolicy = { tipAccounts: DEFAULT_TIP_ACCOUNTS, minTipLamports: 200_000n, minTipSwqosLamports: 5_000n };
/** Any valid blockhash: admission does not look it up. */
const BLOCKHASH = 'GHtXQBsoZHVnNFa9YevAzFr17DJjgHXk3ycTKD5xD3Zi';

export async function run(argv: string[] = []) {
  const flags = parseFlags(argv);
  const n = Math.max(100, Math.round(numberFlag(flags, 'txs', 4000)));
  const warmup = Math.max(0, Math.round(numberFlag(flags, 'warmup', 500)));
  const log = (s: string) => console.log(s);

  const stub = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end('{"jsonrpc":"2.0","id":1,"result":"accepted"}');
    });
  });
  await new Promise<void>((r) => stub.listen(0, '127.0.0.1', () => r()));
  const stubOrigin = `http://127.0.0.1:${(stub.address() as { port: number }).port}`;
  const router = createRouter({ rpcUrls: [`${stubOrigin}/`], blockEngineUrl: null, upstreamTimeoutMs: 5_000, rebroadcastMs: 3_600_000, maxRebroadcastMs: 3_600_000 });
  const app = Fastify();
  registerJsonParser(app as never);
  await registerCors(app as never, '*');
  await app.register(async (scope) => senderApi(scope, { router, policy: POLICY, rateLimitPerSecond: 1_000_000 }));
  const gateway = await app.listen({ port: 0, host: '127.0.0.1' });

  const payer = await generateKeyPairSigner();
  const rpc = (async () => ({ value: { blockhash: BLOCKHASH, lastValidBlockHeight: 1_000 } })) as unknown as SetupRpc;
  const txs = await new TippedTxFactory(rpc, payer).chunk(n + warmup);
  const direct = new Pool(stubOrigin, { connections: 1 });
  const viaGateway = new Pool(gateway, { connections: 1 });
  const body = (tx: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [tx, { encoding: 'base64', skipPreflight: true, maxRetries: 0 }] });
  async function post(p: Pool, path: string, tx: string): Promise<number> {
    const t = performance.now();
    const r = await p.request({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body: body(tx) });
    const text = await r.body.text();
    if (r.statusCode !== 200) throw new Error(`${path}: HTTP ${r.statusCode} ${text.slice(0, 200)}`);
    return performance.now() - t;
  }

  const d: number[] = [];
  const g: number[] = [];
  for (let i = 0; i < txs.length; i++) {
    // A-B B-A pairs, so neither path always follows the other.
    const gatewayFirst = Math.floor(i / 2) % 2 === 0 ? i % 2 === 0 : i % 2 === 1;
    const ms = gatewayFirst ? await post(viaGateway, '/fast', txs[i].base64) : await post(direct, '/', txs[i].base64);
    if (i < warmup) continue;
    (gatewayFirst ? g : d).push(ms);
  }

  // Admission and verification alone, on the same transactions (after the runs: the key cache is warm, as in steady state).
  const params = txs.map((t) => [t.base64, { encoding: 'base64', skipPreflight: true, maxRetries: 0 }]);
  let t0 = performance.now();
  for (const p of params) admitTransaction(p, POLICY, false);
  const admitUs = ((performance.now() - t0) * 1000) / params.length;
  const wire = Buffer.from(txs[0].base64, 'base64');
  const message = wire.subarray(65);
  const signer = payerKey(wire);
  const signature = wire.subarray(1, 65);
  // Verification alone: by the implementation admission uses, and by node:crypto (OpenSSL) for comparison.
  const perCall = (f: () => boolean): number => {
    const start = performance.now();
    for (let i = 0; i < 2000; i++) if (!f()) throw new Error('sender-hop: the signature did not verify');
    return ((performance.now() - start) * 1000) / 2000;
  };
  const verifyUs = perCall(() => verifyEd25519(signer, message, signature));
  const opensslUs = perCall(() => verifyOpenSsl(signer, message, signature));

  await Promise.all([direct.close(), viaGateway.close(), app.close(), router.close()]);
  await new Promise<void>((r) => stub.close(() => r()));

  const pd = percentiles(d, 3);
  const pgw = percentiles(g, 3);
  const result = {
    n: d.length + g.length, direct: pd, gateway: pgw,
    addedP50Ms: Number((pgw.p50Ms - pd.p50Ms).toFixed(3)), addedMeanMs: Number((pgw.meanMs - pd.meanMs).toFixed(3)),
    admitUsPerCall: Number(admitUs.toFixed(1)), verifyUsPerCall: Number(verifyUs.toFixed(1)), verifier: ed25519Implementation, opensslVerifyUsPerCall: Number(opensslUs.toFixed(1)), loadavg: loadavg().map((x) => Number(x.toFixed(2))),
    timestamp: new Date().toISOString(),
  };
  log(`\n=== sender-hop: ${result.n} requests in one process (stub upstream answering at once), ${warmup} warm-up; load ${result.loadavg.join(' / ')}`);
  log(table(['path', 'p50 ms', 'p90 ms', 'p99 ms', 'mean ms'], [
    ['direct to the stub', pd.p50Ms, pd.p90Ms, pd.p99Ms, pd.meanMs],
    ['/fast through the gateway', pgw.p50Ms, pgw.p90Ms, pgw.p99Ms, pgw.meanMs],
    ['added', result.addedP50Ms, '', '', result.addedMeanMs],
  ]));
  log(`admission (decode, verify every signature, fee and tip checks): ${result.admitUsPerCall} µs per call; ed25519 verification alone: ${result.verifyUsPerCall} µs (${result.verifier}; node:crypto/OpenSSL ${result.opensslVerifyUsPerCall} µs)`);
  log(`sender-hop: result written to ${writeResult('sender-hop', result)}`);
  return result;
}

/** The fee payer's key of a one-signature legacy wire transaction (signature count, signature, 3 header bytes, key count). */
function payerKey(wire: Buffer): Uint8Array {
  return wire.subarray(1 + 64 + 3 + 1, 1 + 64 + 3 + 1 + 32);
}
