/**
 * The packed transport of a block between threads (src/sources/block-pack.ts): what the ingester receives from a
 * decoding worker must be the block the worker decoded, field for field, for real recorded blocks and for the
 * shapes other sources give (no meta, no header, legacy messages, failed transactions, text beyond ASCII).
 */
import { describe, expect, it } from 'vitest';
import { isDeepStrictEqual } from 'node:util';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import type { Block } from '../../src/core/model.js';
import { packBlock, packedBuffers, unpackBlock, type PackedBlock } from '../../src/sources/block-pack.js';
import { readRecords } from '../../src/sources/replay.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const MAINNET_BLOCK = join(FIXTURES, 'photon-blocks', 'index_block_metadata', '254170887');

/** `p` as another thread receives it: posted with its buffers handed over. */
function posted(p: PackedBlock): PackedBlock {
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(p, packedBuffers(p));
  const got = receiveMessageOnPort(port2)?.message as PackedBlock;
  port1.close();
  return got;
}

async function blockOf(file: string): Promise<Block> {
  const records = await readRecords(file);
  const r = records.find((x) => x.kind === 'block');
  if (!r || r.kind !== 'block') throw new Error(`${file}: no block`);
  return r.block;
}

describe('packed blocks', () => {
  it('unpacks a real mainnet block to the block that was packed, after crossing a thread boundary', async () => {
    const block = await blockOf(MAINNET_BLOCK);
    expect(block.transactions.some((t) => t.meta?.err !== null)).toBe(true);
    const expected = structuredClone(block);
    const p = packBlock(block);
    expect(p).not.toBeNull();
    const got = unpackBlock(posted(p as PackedBlock));
    expect(isDeepStrictEqual(got, expected)).toBe(true);
    // Addresses are shared within the block rather than one string per use; instruction data keeps its own bytes.
    const ix = got.transactions.flatMap((t) => t.instructions);
    expect(new Set(ix.map((i) => i.data.buffer)).size).toBe(1);
    expect(ix.map((i) => Buffer.from(i.data).toString('hex'))).toEqual(
      expected.transactions.flatMap((t) => t.instructions).map((i) => Buffer.from(i.data).toString('hex')),
    );
  });

  it('keeps the shapes of other sources: no meta, no header, legacy messages, null positions, errors, non-ASCII logs', async () => {
    const block = await blockOf(MAINNET_BLOCK);
    const [a, b, c] = block.transactions;
    const odd: Block = {
      slot: 7,
      parentSlot: null,
      blockhash: null,
      previousBlockhash: null,
      blockTime: null,
      blockHeight: null,
      transactions: [
        { ...a, meta: null, header: null, recentBlockhash: null, indexInBlock: null, blockTime: null, logMessages: null },
        { ...b, version: 'legacy', addressTableLookups: [], logMessages: ['Program log: héllo wörld 🚀', ''] },
        {
          ...c,
          meta: { ...(c.meta as NonNullable<typeof c.meta>), err: { InstructionError: [2, { Custom: 6001 }] }, computeUnitsConsumed: null, preTokenBalances: null, postTokenBalances: [] },
          instructions: c.instructions.map((ix) => ({ ...ix, stackHeight: null, data: new Uint8Array(0) })),
        },
      ],
      accounts: [],
    };
    const expected = structuredClone(odd);
    const got = unpackBlock(posted(packBlock(odd) as PackedBlock));
    expect(isDeepStrictEqual(got, expected)).toBe(true);
  });

  it('leaves a block unpacked when an amount does not fit in u64 (it is sent as it is)', async () => {
    const block = await blockOf(MAINNET_BLOCK);
    const tx = block.transactions.find((t) => t.meta !== null) as Block['transactions'][number];
    const meta = tx.meta as NonNullable<typeof tx.meta>;
    const negative: Block = { ...block, transactions: [{ ...tx, meta: { ...meta, fee: -1n } }] };
    const huge: Block = { ...block, transactions: [{ ...tx, meta: { ...meta, preBalances: [1n << 64n] } }] };
    expect(packBlock(negative)).toBeNull();
    expect(packBlock(huge)).toBeNull();
  });

  it('reads recorded files with text beyond ASCII as UTF-8', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'solgate-block-pack-'));
    const fixture = readdirSync(join(FIXTURES, 'photon-blocks', 'index_block_metadata'))[0];
    const block = await blockOf(join(FIXTURES, 'photon-blocks', 'index_block_metadata', fixture));
    const tx = block.transactions.find((t) => (t.logMessages?.length ?? 0) > 0);
    expect(tx).toBeDefined();
    const text = readFileSync(join(FIXTURES, 'photon-blocks', 'index_block_metadata', fixture), 'utf8');
    const first = (tx?.logMessages as string[])[0];
    const changed = text.replace(JSON.stringify(first), JSON.stringify(`${first} — ünïcödé 🚀`));
    expect(changed).not.toBe(text);
    writeFileSync(join(dir, fixture), changed, 'utf8');
    const again = await blockOf(join(dir, fixture));
    const same = again.transactions.find((t) => t.signature === tx?.signature);
    expect(same?.logMessages?.[0]).toBe(`${first} — ünïcödé 🚀`);
  });
});
