/** A decoding worker of src/sources/replay-decode-pool.ts: `{id, file}` in, the file's records (or its error) out. */
import { parentPort } from 'node:worker_threads';
import { readRecords } from './replay.js';

parentPort?.on('message', (m: { id: number; file: string }) => {
  readRecords(m.file).then(
    (records) => parentPort?.postMessage({ id: m.id, records }),
    (e: unknown) => parentPort?.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e) }),
  );
});
