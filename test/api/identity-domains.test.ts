/**
 * Identity by `.sol` domain: the name-account derivation matches the published SNS vectors; domains resolve
 * through indexed name-service accounts (replayed as account snapshots) or, when absent, through a live read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reverseLookupKey, solDomainKey } from '../../src/parsers/accounts/name-service.js';
import { base58ToBytes } from '../../src/core/encoding.js';
import { NAME_SERVICE_PROGRAM, SNS_REVERSE_LOOKUP_CLASS, SOL_TLD_AUTHORITY } from '../../src/core/programs.js';
import { replayInto } from '../../src/ingest/replay.js';
import { upsertIdentities } from '../../src/store/identities.js';
import type { AccountUpdate } from '../../src/core/model.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const OWNER = 'HKKp49qGWXd639QsuH7JiLijfVW5UtCVY4s1n2HANwEA';
const OTHER = 'Gv1ZyXGeGx7kRD6jPESjGJvcvPGTmkyNTEqMGJgHVkuT';
const ZERO = '11111111111111111111111111111111';

/** A name-service account in the program's layout: parent ‖ owner ‖ class ‖ data. */
function nameAccount(parent: string, owner: string, cls: string, data: Uint8Array = new Uint8Array()): Uint8Array {
  const out = new Uint8Array(96 + data.length);
  out.set(base58ToBytes(parent), 0);
  out.set(base58ToBytes(owner), 32);
  out.set(base58ToBytes(cls), 64);
  out.set(data, 96);
  return out;
}

function borshString(s: string): Uint8Array {
  const b = new TextEncoder().encode(s);
  const out = new Uint8Array(4 + b.length);
  new DataView(out.buffer).setUint32(0, b.length, true);
  out.set(b, 4);
  return out;
}

describe('SNS derivation', () => {
  it('matches the published SNS SDK vectors', async () => {
    expect(await solDomainKey('bonfida.sol')).toBe('Crf8hzfthWGbGbLTVCiqRqV5MVnbpHB1L9KQMd6gsinb');
    expect(await solDomainKey('dex.bonfida.sol')).toBe('HoFfFXqFHAC8RP3duuQNzag1ieUwJRBv1HtRNiWFq4Qu');
    expect(await solDomainKey('BONFIDA.sol')).toBe('Crf8hzfthWGbGbLTVCiqRqV5MVnbpHB1L9KQMd6gsinb');
    expect(await solDomainKey('a.b.c.sol')).toBeNull();
  });
});

describe('identity by domain', () => {
  let ta: TestApp;
  const live = new Map<string, AccountUpdate>();
  beforeAll(async () => {
    ta = await createTestApp({ fetchAccounts: async (keys) => keys.flatMap((k) => (live.has(k) ? [live.get(k)!] : [])) });
    const domain = await solDomainKey('bonfida.sol');
    const reverse = await reverseLookupKey(domain!);
    const dir = mkdtempSync(join(tmpdir(), 'sns-'));
    const snap = (pubkey: string, data: Uint8Array) => ({ pubkey, lamports: 1_000_000, owner: NAME_SERVICE_PROGRAM, data: [Buffer.from(data).toString('base64'), 'base64'], slot: 10 });
    writeFileSync(join(dir, 'accounts.json'), JSON.stringify([
      snap(domain!, nameAccount(SOL_TLD_AUTHORITY, OWNER, ZERO)),
      snap(reverse, nameAccount(ZERO, OWNER, SNS_REVERSE_LOOKUP_CLASS, borshString('bonfida'))),
    ]));
    await replayInto(ta.t.db, [dir]);
    await upsertIdentities(ta.t.db, [
      { address: OWNER, name: 'Bonfida', type: 'protocol', category: 'DeFi', tags: ['sns'] },
      { address: OTHER, name: 'Other', type: 'exchange', category: 'Centralized Exchange', tags: [] },
    ]);
    const liveKey = (await solDomainKey('other.sol'))!;
    live.set(liveKey, { pubkey: liveKey, owner: NAME_SERVICE_PROGRAM, lamports: 1n, data: nameAccount(SOL_TLD_AUTHORITY, OTHER, ZERO), executable: false, slot: 1, writeVersion: 0n });
  });
  afterAll(async () => ta?.close());

  const get = (url: string) => ta.app.inject({ method: 'GET', url, headers: { 'x-api-key': ta.key } });

  it('resolves an indexed .sol domain to its owner and lists the owner’s domains', async () => {
    const r = await get('/v1/wallet/bonfida.sol/identity');
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ address: OWNER, type: 'protocol', name: 'Bonfida', category: 'DeFi', tags: ['sns'], domainNames: ['bonfida.sol'] });
    const byAddr = await get(`/v1/wallet/${OWNER}/identity`);
    expect(byAddr.json().domainNames).toEqual(['bonfida.sol']);
  });

  it('reads a domain that is not indexed from the cluster', async () => {
    const r = await get('/v1/wallet/other.sol/identity');
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ address: OTHER, name: 'Other' });
    expect(r.json().domainNames).toBeUndefined();
  });

  it('unknown domain → 404; other TLDs and malformed names → 400', async () => {
    expect((await get('/v1/wallet/nobody-has-this.sol/identity')).statusCode).toBe(404);
    const ans = await get('/v1/wallet/name.abc/identity');
    expect(ans.statusCode).toBe(400);
    expect(ans.json().details).toMatch(/only SPL Name Service/);
    expect((await get('/v1/wallet/a.b.c.sol/identity')).statusCode).toBe(400);
  });

  it('batch-identity mixes addresses and domains, deduplicates, omits unknowns', async () => {
    const r = await ta.app.inject({ method: 'POST', url: '/v1/wallet/batch-identity', headers: { 'x-api-key': ta.key }, payload: { addresses: ['bonfida.sol', OWNER, 'nobody-has-this.sol', OTHER] } });
    expect(r.statusCode).toBe(200);
    expect(r.json().map((i: { address: string }) => i.address)).toEqual([OWNER, OTHER]);
  });
});
