/**
 * Standard calls of one client batch reach the cluster RPC as one JSON-RPC batch (one round trip), answered in the
 * client's order under the client's ids; a node that refuses batches, or leaves calls out of its answer, gets those
 * calls one by one. Driven through the gateway's POST / against the built-in localnet behind a recording proxy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { createUpstreamRpc, type UpstreamRpc } from '../../src/sources/upstream-rpc.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let net: Localnet;
let proxy: Server;
let upstream: UpstreamRpc;
let ta: TestApp;
/** The bodies the node received, and whether it refuses batches. */
const seen: unknown[] = [];
let refuseBatches = false;

beforeAll(async () => {
  net = await createLocalnet({ slotMs: 50 });
  proxy = createServer(async (req, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    const body = JSON.parse(text);
    seen.push(body);
    res.setHeader('content-type', 'application/json');
    if (Array.isArray(body) && refuseBatches) {
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch requests are not allowed' } }));
      return;
    }
    const r = await fetch(net.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    res.end(await r.text());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const port = (proxy.address() as { port: number }).port;
  upstream = createUpstreamRpc({ url: `http://127.0.0.1:${port}` });
  ta = await createTestApp({ upstreamRpc: upstream });
});

afterAll(async () => {
  await ta?.close();
  await upstream?.close();
  await new Promise((r) => proxy?.close(r));
  await net?.close();
});

async function post(body: object): Promise<any> {
  const r = await ta.app.inject({ method: 'POST', url: '/', headers: { 'x-api-key': ta.key }, payload: body });
  return r.json();
}

const batch = [
  { jsonrpc: '2.0', id: 'a', method: 'getSlot', params: [{ commitment: 'processed' }] },
  { jsonrpc: '2.0', id: 7, method: 'getBalance', params: ['11111111111111111111111111111111'] },
  { jsonrpc: '2.0', id: 'das', method: 'getAsset', params: { id: 'So11111111111111111111111111111111111111112' } },
  { jsonrpc: '2.0', id: null, method: 'getBalance', params: ['not a key'] },
  { jsonrpc: '2.0', id: 9, method: 'getGenesisHash' },
];

describe('a client batch of standard calls', () => {
  it('goes to the node as one batch, answers in order under the client\'s ids', async () => {
    seen.length = 0;
    const out = await post(batch);
    expect(out.map((r: any) => r.id)).toEqual(['a', 7, 'das', null, 9]);
    expect(typeof out[0].result).toBe('number');
    expect(out[1].result.value).toBeGreaterThan(0);
    expect(out[3].error.code).toBe(-32602); // the node's own error, passed through
    expect(typeof out[4].result).toBe('string');
    expect(seen).toHaveLength(1);
    expect((seen[0] as any[]).map((c) => c.method)).toEqual(['getSlot', 'getBalance', 'getBalance', 'getGenesisHash']);
  });

  it('a node that refuses batches gets the calls one by one, with the same answers', async () => {
    const first = await post(batch);
    refuseBatches = true;
    try {
      seen.length = 0;
      const out = await post(batch);
      expect(seen.filter((b) => !Array.isArray(b))).toHaveLength(4);
      expect(out.map((r: any) => r.id)).toEqual(['a', 7, 'das', null, 9]);
      expect(out[1].result.value).toEqual(first[1].result.value);
      expect(out[3]).toEqual(first[3]);
      expect(out[4]).toEqual(first[4]);
    } finally {
      refuseBatches = false;
    }
  });
});
