/**
 * Replay decoding in worker threads (decodeWorkers): the same items, in the same order, as decoding on the calling
 * thread; a bad file fails the iteration with an error naming it.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReplaySource, type ReplayItem } from '../../src/sources/replay.js';
import { startReplayDecoding, type DecodePool } from '../../src/sources/replay-decode-pool.js';

const BLOCK = join(import.meta.dirname, '..', 'fixtures', 'photon-blocks', 'index_block_metadata', '254170887');
const TXS = join(import.meta.dirname, '..', 'fixtures', 'photon-transactions');

async function collect(paths: string[], decodeWorkers: number, decodePool?: DecodePool): Promise<ReplayItem[]> {
  const out: ReplayItem[] = [];
  for await (const item of createReplaySource(paths, { decodeWorkers, decodePool }).items()) out.push(item);
  return out;
}

describe('replay decoding in worker threads', () => {
  it('yields the same items in the same order as decoding on the calling thread', async () => {
    const paths = [TXS, BLOCK];
    const inline = await collect(paths, 0);
    const pooled = await collect(paths, 2);
    expect(inline.length).toBeGreaterThan(100);
    expect(pooled).toEqual(inline);
  }, 120_000);

  it('fails with an error naming the file that cannot be decoded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'solgate-replay-workers-'));
    writeFileSync(join(dir, 'a.json'), '{"pubkey":"11111111111111111111111111111111","lamports":1,"owner":"11111111111111111111111111111111","data":["","base64"],"executable":false,"rentEpoch":0,"slot":1}');
    writeFileSync(join(dir, 'b.json'), '{"not": "a record"}');
    await expect(collect([dir], 2)).rejects.toThrow(/b\.json/);
  }, 120_000);

  it('takes the files a pool began decoding before the replay (solgate replay starts it early), in order', async () => {
    // The block twice: the second turn of a prefetched file is decoded again, not lost.
    const paths = [BLOCK, TXS, BLOCK];
    const inline = await collect(paths, 0);
    const pool = await startReplayDecoding(paths, 1, 8);
    try {
      expect(await collect(paths, 0, pool)).toEqual(inline);
      // The caller's pool is not closed by the replay: it decodes a second run as well.
      expect(await collect([BLOCK], 0, pool)).toEqual(inline.slice(0, 1));
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('drops what a pool decoded early of a file the replay skips as already stored', async () => {
    const pool = await startReplayDecoding([BLOCK, TXS], 1, 8);
    try {
      expect(pool.waiting).toBeGreaterThan(1);
      const skipped: string[] = [];
      const items: ReplayItem[] = [];
      // The block file is named by its slot; the store "holds" that slot with the block's own hash.
      const source = createReplaySource([BLOCK, TXS], {
        decodePool: pool,
        storedBlockhash: (slot) => (slot === 254170887 ? '5GG5pzTbH6KgZM54M9XWfBNmBupQuZXdQxoZRRQXHcpM' : null),
        onSkipped: (file) => skipped.push(file),
      });
      for await (const item of source.items()) items.push(item);
      expect(skipped).toEqual([BLOCK]);
      expect(items.length).toBeGreaterThan(10);
      expect(items.every((i) => i.kind !== 'block' || i.block.slot !== 254170887)).toBe(true);
      expect(pool.waiting).toBe(0);
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('reports a prefetched file that cannot be decoded at its turn, and an unreadable path as the replay does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'solgate-replay-early-'));
    writeFileSync(join(dir, 'a.json'), '{"not": "a record"}');
    const pool = await startReplayDecoding([dir], 1, 8);
    const missing = await startReplayDecoding([join(dir, 'missing')], 1, 8);
    try {
      await expect(collect([dir], 0, pool)).rejects.toThrow(/a\.json/);
      await expect(collect([join(dir, 'missing')], 0, missing)).rejects.toThrow(/cannot read .*missing/);
    } finally {
      await Promise.all([pool.close(), missing.close()]);
    }
  }, 120_000);
});
