/**
 * The `x-solgate-coverage` header of answers about no single address (lists by collection, ZK Compression): complete
 * from genesis, else partial since the index's origin; a batch says partial when any of its answers is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { createCoverageService, type CoverageService } from '../../src/ingest/hydrate.js';
import { recordIndexOrigin } from '../../src/store/coverage.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const logger = pino({ level: 'silent' });
let ta: TestApp;
let coverage!: CoverageService;

beforeAll(async () => {
  ta = await createTestApp((db) => {
    coverage = createCoverageService({ db, client: null, commitment: 'confirmed', logger });
    return { ensureCovered: coverage.ensureCovered, indexCoverage: coverage.indexCoverage };
  });
});
afterAll(async () => ta?.close());

const COLLECTION = '2MJeqBXcRmy3PXvQP5RRPqeig2CTfnXv5nGT3wRD1xW5';
const OWNER = 'HkdmoXct4zKyAfgZgpuavKzmuvf2Z5UZ35v1UUW3Z9Jk';

async function post(payload: object) {
  const r = await ta.app.inject({ method: 'POST', url: '/', headers: { 'x-api-key': ta.key }, payload });
  expect(r.statusCode, r.body).toBe(200);
  return r.headers['x-solgate-coverage'];
}

describe('x-solgate-coverage on JSON-RPC', () => {
  it('before any live ingestion: partial, no cluster', async () => {
    expect(await post({ jsonrpc: '2.0', id: 1, method: 'getAssetsByGroup', params: { groupKey: 'collection', groupValue: COLLECTION } })).toBe('partial; basis=no-cluster');
  });

  it('an index that began at slot 500: lists and ZK answers are partial since then; a batch says partial if any is', async () => {
    await recordIndexOrigin(ta.t.db, 500);
    expect(await post({ jsonrpc: '2.0', id: 1, method: 'getAssetsByGroup', params: { groupKey: 'collection', groupValue: COLLECTION } })).toBe('partial; basis=since-origin; slot=500');
    expect(await post({ jsonrpc: '2.0', id: 1, method: 'getCompressedAccountsByOwner', params: { owner: OWNER } })).toBe('partial; basis=since-origin; slot=500');
    // Without a cluster, the owner's own answer cannot be completed either.
    expect(await post([
      { jsonrpc: '2.0', id: 1, method: 'getAssetsByOwner', params: { ownerAddress: OWNER } },
      { jsonrpc: '2.0', id: 2, method: 'getIndexerSlot' },
    ])).toBe('partial; basis=no-cluster');
  });

  it('an index that began at genesis: complete', async () => {
    await ta.t.db.query(`UPDATE index_origin SET first_slot = 0`);
    const fresh = createCoverageService({ db: ta.t.db, client: null, commitment: 'confirmed', logger });
    expect(await fresh.indexCoverage()).toEqual({ complete: true, basis: 'genesis' });
    expect(await fresh.ensureCovered(OWNER, 'history')).toEqual({ complete: true, basis: 'genesis' });
  });
});
