/**
 * A decoding worker of src/sources/replay-decode-pool.ts: `{id, file}` in, the file's records (or its error) out.
 * Blocks go out packed (src/sources/block-pack.ts), their buffers handed over rather than copied.
 */
import { parentPort } from 'node:worker_threads';
import { packBlock, packedBuffers } from './block-pack.js';
import { readRecords } from './replay.js';
import type { PostedRecord } from './replay-record.js';

parentPort?.on('message', (m: { id: number; file: string }) => {
  readRecords(m.file)
    .then((records) => {
      const transfer: ArrayBuffer[] = [];
      const posted = records.map((r): PostedRecord => {
        const packed = r.kind === 'block' ? packBlock(r.block) : null;
        if (!packed) return r;
        transfer.push(...packedBuffers(packed));
        return { kind: 'packed-block', packed };
      });
      parentPort?.postMessage({ id: m.id, records: posted }, transfer);
    })
    // Reading, packing or posting: whichever failed, the file's turn gets the error.
    .catch((e: unknown) => parentPort?.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e) }));
});
