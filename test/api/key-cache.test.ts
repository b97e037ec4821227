/**
 * API keys that passed are remembered for SOLGATE_KEY_CACHE_MS (src/api/plugins/key-cache.ts): a change made behind
 * the key store's back (plain SQL, no NOTIFY) is seen only when the entry expires, while a change made through the
 * store applies at once. (Across processes, the change's NOTIFY: test/e2e/limits-two-processes.test.ts.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { revokeApiKey, updateApiKey } from '../../src/store/keys.js';

const status = (ta: TestApp, key = ta.key) =>
  ta.app.inject({ method: 'POST', url: `/?api-key=${key}`, payload: { jsonrpc: '2.0', id: 1, method: 'getAssetsByOwner', params: { ownerAddress: '86xCnPeV69n6t3DnyGvkKobf9FdN2H9oiVDdaMpo2MMY' } } }).then((r) => r.statusCode);
const keyId = (key: string) => key.split('_')[1];

let ta: TestApp | undefined;
afterEach(async () => {
  await ta?.close();
  ta = undefined;
});

describe('the key cache', () => {
  it('remembers a key that passed for SOLGATE_KEY_CACHE_MS, then reads it again', async () => {
    ta = await createTestApp({ keyCacheMs: 400 });
    expect(await status(ta)).toBe(200);
    // Revoked with plain SQL: no change count, no NOTIFY — only the entry's expiry can reveal it.
    await ta.t.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [keyId(ta.key)]);
    expect(await status(ta)).toBe(200);
    await new Promise((r) => setTimeout(r, 450));
    expect(await status(ta)).toBe(401);
  });

  it('applies a revoke or an allow-list change made through the key store at once', async () => {
    ta = await createTestApp({ keyCacheMs: 600_000 });
    expect(await status(ta)).toBe(200);
    expect(await updateApiKey(ta.t.db, keyId(ta.key), { allowedIps: ['10.9.8.7'] })).not.toBeNull();
    expect(await status(ta)).toBe(403);
    expect(await updateApiKey(ta.t.db, keyId(ta.key), { allowedIps: [] })).not.toBeNull();
    expect(await status(ta)).toBe(200);
    expect(await revokeApiKey(ta.t.db, keyId(ta.key))).toBe(true);
    expect(await status(ta)).toBe(401);
  });

  it('reads the key on every request with SOLGATE_KEY_CACHE_MS=0', async () => {
    ta = await createTestApp({ keyCacheMs: 0 });
    expect(await status(ta)).toBe(200);
    await ta.t.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [keyId(ta.key)]);
    expect(await status(ta)).toBe(401);
  });

  it('remembers the exact key text only: a wrong secret for a remembered key id is refused', async () => {
    ta = await createTestApp({ keyCacheMs: 600_000 });
    expect(await status(ta)).toBe(200);
    const forged = `sg_${keyId(ta.key)}_${'A'.repeat(43)}`;
    expect(await status(ta, forged)).toBe(401);
    expect(await status(ta)).toBe(200);
  });
});
