/**
 * getIndexerHealth against a live cluster: the tip comes from a running localnet over JSON-RPC (the tip watcher
 * `serve` uses), the indexed slot from the checkpoint. Behind by more than the limit → Photon's
 * `Node is behind N slots`; caught up → "ok"; a cluster that stops answering keeps the last known tip.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { createTipWatcher, type TipWatcher } from '../../src/sources/tip-watcher.js';
import { advanceCheckpoint } from '../../src/store/chain.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { callRpc } from '../zk/harness.js';

let net: Localnet;
let tips: TipWatcher;
let ta: TestApp;
let closed = false;
beforeAll(async () => {
  net = await createLocalnet({ slotMs: 0 });
  for (let i = 0; i < 5; i++) net.chain.produceSlot();
  tips = createTipWatcher(net.url, { intervalMs: 50 });
  ta = await createTestApp({ ingestStatus: () => ({ lastSlot: null, tip: tips.tip }) });
});
afterAll(async () => {
  await ta?.close();
  await tips?.close();
  if (!closed) await net?.close();
});

describe('getIndexerHealth with a live tip', () => {
  it('ok when caught up, "Node is behind N slots" past the limit, ok again after catching up', async () => {
    await tips.refresh();
    const start = tips.tip!;
    await advanceCheckpoint(ta.t.db, start);
    expect((await callRpc(ta, 'getIndexerHealth', {})).result).toBe('ok');
    for (let i = 0; i < 20; i++) net.chain.produceSlot();
    await tips.refresh();
    expect((await callRpc(ta, 'getIndexerHealth', {})).result).toBe('ok');
    for (let i = 0; i < 10; i++) net.chain.produceSlot();
    await tips.refresh();
    const behind = tips.tip! - start;
    expect(behind).toBeGreaterThan(20);
    expect((await callRpc(ta, 'getIndexerHealth', {})).error).toEqual({ code: -32000, message: `Node is behind ${behind} slots` });
    await advanceCheckpoint(ta.t.db, tips.tip!);
    expect((await callRpc(ta, 'getIndexerHealth', {})).result).toBe('ok');
    // The cluster goes away: the last known tip stays.
    const last = tips.tip;
    await net.close();
    closed = true;
    await tips.refresh();
    expect(tips.tip).toBe(last);
  });
});
