/**
 * A claim never hands out events another worker delivered while the claim ran. The claim is one statement (take the
 * lease, read the first due events); in READ COMMITTED its reads see the snapshot of the statement's start, so a
 * worker that took the lease, delivered and released between that start and the claim's own lease insert left
 * events that still looked pending to the claim — delivered twice with no fault anywhere. Reproduced here exactly:
 * worker C's lease insert is uncommitted when worker A's claim starts (A's insert waits on it), then C records its
 * deliveries, releases and commits. Needs real PostgreSQL (two connections at once): DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { claimWebhook } from '../../src/store/webhook-events.js';
import { createApiKey } from '../../src/store/keys.js';
import { createWebhook } from '../../src/store/webhooks.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

const hasPostgres = !!process.env.DATABASE_URL;
let t: TestDb;
let hook: string;

beforeAll(async () => {
  if (!hasPostgres) return;
  t = await createTestDb();
  const { record } = await createApiKey(t.db, { name: 'claim-race' });
  const created = await createWebhook(t.db, record.id, {
    url: 'http://127.0.0.1:9/hook', webhookType: 'raw', transactionTypes: ['ANY'], accountAddresses: ['11111111111111111111111111111111'],
    txnStatus: 'all', encoding: 'jsonParsed', authHeader: null, active: true,
  }, 10);
  if (!created.ok) throw new Error('webhook not created');
  hook = created.webhook.id;
}, 60_000);
afterAll(async () => t?.drop());

async function queue(n: number, from: number): Promise<void> {
  const sigs = Array.from({ length: n }, (_, i) => `claim-race-sig-${from + i}`);
  await t.db.query(`INSERT INTO webhook_payloads (signature, slot, raw, enhanced) SELECT s, 1, '{}', '{}' FROM unnest($1::text[]) s`, [sigs]);
  await t.db.query(
    `INSERT INTO webhook_events (webhook_id, signature, slot, position) SELECT $1, s, 1, o FROM unnest($2::text[]) WITH ORDINALITY AS u (s, o)`,
    [hook, sigs],
  );
}

describe.skipIf(!hasPostgres)('webhook claims under concurrent workers (needs DATABASE_URL)', () => {
  it('events delivered and released by another worker while the claim ran are not handed out again', async () => {
    await queue(3, 0);
    const c = new pg.Client({ connectionString: t.url });
    await c.connect();
    try {
      // Worker C takes the lease (not yet committed)…
      await c.query('BEGIN');
      await c.query(`INSERT INTO webhook_leases (webhook_id, owner, until) VALUES ($1, 'C', clock_timestamp() + interval '1 minute')`, [hook]);
      // …worker A's claim starts meanwhile: C's lease is not visible to it, and its lease insert waits on C's row.
      let settled: unknown = 'not yet';
      const claim = claimWebhook(t.db, 'A', 60_000, 10).then((r) => (settled = r), (e) => (settled = e));
      const deadline = Date.now() + 20_000;
      for (;;) {
        // A's claim waits on C's transaction (its lease row), in this database.
        const { rows } = await c.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
        );
        if (rows.length) break;
        if (Date.now() > deadline) throw new Error(`the claim never waited on the lease; it returned ${JSON.stringify(settled)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      // C delivers all three, records them and releases its lease, in one commit.
      await c.query(`UPDATE webhook_events SET state = 'delivered', attempts = 1, delivered_at = clock_timestamp() WHERE webhook_id = $1`, [hook]);
      await c.query(`DELETE FROM webhook_leases WHERE webhook_id = $1 AND owner = 'C'`, [hook]);
      await c.query('COMMIT');
      const got = (await claim) as Awaited<ReturnType<typeof claimWebhook>>;
      // A may take the (now free) lease, but with nothing to deliver.
      expect(got?.due ?? []).toEqual([]);
    } finally {
      await c.end();
    }
    // Events queued later are handed out as usual.
    await t.db.query('DELETE FROM webhook_leases WHERE webhook_id = $1', [hook]);
    await queue(2, 10);
    const next = await claimWebhook(t.db, 'A', 60_000, 10);
    expect(next?.due.map((e) => e.signature)).toEqual(['claim-race-sig-10', 'claim-race-sig-11']);
  });
});
