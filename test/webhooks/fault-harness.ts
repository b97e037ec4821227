/**
 * The harness of the webhook fault tests (test/e2e/webhook-faults.test.ts, test/reliability/webhook-faults.test.ts):
 * the built-in localnet (this process) → `solgate ingest` (a child process) → PostgreSQL outbox → `solgate worker`
 * children → a local HTTP receiver (this process) that can be taken down and brought back on its port; webhooks
 * watching wallets; and the invariants both tests check for every webhook.
 *
 * Several processes share one database: PostgreSQL only (DATABASE_URL).
 */
import { expect } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { createApiKey } from '../../src/store/keys.js';
import { createWebhook, type WebhookSettings } from '../../src/store/webhooks.js';
import type { Db } from '../../src/store/db.js';
import { eventId } from '../../src/webhooks/signing.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { localnetSender, type Landed, type LocalnetSender } from '../localnet/helpers.js';
import { until } from '../reliability/helpers.js';
import { startReceiver, type Behaviour, type Received, type Receiver } from './receiver.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** The workers' delivery timeout (ms). */
export const TIMEOUT_MS = 1000;

/** Environment of a `solgate worker`: short timeout and retries, private targets allowed, auto-deactivation off. */
export const WORKER_ENV: Record<string, string> = {
  SOLGATE_WEBHOOK_CONCURRENCY: '4',
  SOLGATE_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
  SOLGATE_WEBHOOK_RETRY_BASE_MS: '100',
  SOLGATE_WEBHOOK_RETRY_MAX_MS: '400',
  SOLGATE_WEBHOOK_POLL_MS: '50',
  SOLGATE_WEBHOOK_DEACTIVATE_FAILURE_RATE: '0',
  SOLGATE_WEBHOOKS_ALLOW_PRIVATE: 'true',
};

/** A webhook watching one wallet, delivering to `path` on the receiver. */
export interface FaultHook {
  id: string;
  wallet: Address;
  path: string;
}

export interface FaultHarness {
  t: TestDb;
  net: Localnet;
  sender: LocalnetSender;
  /** Funded by the faucet; pays every transfer. */
  payer: KeyPairSigner;
  keyId: string;
  /** The current receiver (a new one, on the same port, after `receiverUp`). */
  rcv: Receiver;
  /** Every request any receiver got, in arrival order. */
  received: Received[];
  /** Child-process output (stderr, and stdout lines other than info), for failure messages. */
  output: string[];
  /** A webhook (raw, or enhanced for ANY type) on `wallet`, delivering to `path`, owned by the harness's key. */
  createHook(wallet: Address, path: string, type: 'raw' | 'enhanced'): Promise<FaultHook>;
  /** One transfer of 10_000_000 + `n` lamports from the payer to `to`, in its own slot. */
  transfer(to: Address, n: number): Promise<Landed>;
  /** Spawns `solgate <args>` on the harness's database; killed at `stop`. */
  solgate(args: string[], env: Record<string, string>): ChildProcess;
  /** `solgate ingest` from slot 0 over the localnet, polling every 20 ms, without account or off-chain fetching. */
  ingest(): ChildProcess;
  /** Whether the child logged the start of its delivery worker (at LOG_LEVEL info). */
  started(c: ChildProcess): boolean;
  /** Polls `cond` every `everyMs`; after `ms` throws naming `what`, with the last child output. */
  until(what: string, cond: () => boolean | Promise<boolean>, ms: number, everyMs: number): Promise<void>;
  /** Closes the receiver: connections to its port are refused. */
  receiverDown(): Promise<void>;
  /** Opens a receiver again on the same port. */
  receiverUp(): Promise<void>;
  /** Kills the children still running, closes the receiver and the localnet, drops the database. */
  stop(): Promise<void>;
}

/**
 * Starts the database, the localnet and the receiver (answering as `behave` says), funds the payer with `airdrop`
 * lamports and creates the API key `keyName` the webhooks belong to.
 */
export async function startFaultHarness(opts: { keyName: string; airdrop: bigint; behave: Behaviour }): Promise<FaultHarness> {
  const t = await createTestDb();
  const net = await createLocalnet({ port: 0, slotMs: 0 });
  const received: Received[] = [];
  const openReceiver = async (port = 0) => {
    const r = await startReceiver(opts.behave, port);
    r.received = received;
    return r;
  };
  const rcv = await openReceiver();
  const sender = localnetSender(net);
  const payer = await generateKeyPairSigner();
  await sender.airdrop(payer.address, opts.airdrop);
  const { record: key } = await createApiKey(t.db, { name: opts.keyName, plan: 'developer' });
  const children: ChildProcess[] = [];
  const ready = new WeakSet<ChildProcess>();
  let downPort = 0;

  const h: FaultHarness = {
    t, net, sender, payer, keyId: key.id, rcv, received, output: [],
    async createHook(wallet, path, type) {
      const settings: WebhookSettings = {
        url: `${h.rcv.url}${path}`, webhookType: type, transactionTypes: type === 'enhanced' ? ['ANY'] : [], accountAddresses: [wallet],
        txnStatus: 'all', encoding: 'jsonParsed', authHeader: null, active: true,
      };
      const r = await createWebhook(t.db, key.id, settings, 50);
      if (!r.ok) throw new Error('webhook not created');
      return { id: r.webhook.id, wallet, path };
    },
    transfer: (to, n) => sender.send(payer, [getTransferSolInstruction({ source: payer, destination: to, amount: 10_000_000n + BigInt(n) })]),
    solgate(args, env) {
      const c = spawn(process.execPath, [join(ROOT, 'bin', 'solgate.js'), ...args], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: t.url!, LOG_LEVEL: 'warn', SOLANA_RPC_URL: '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      c.stdout!.on('data', (d: Buffer) => {
        if (String(d).includes('webhook delivery worker started')) ready.add(c);
        if (!String(d).includes('"level":30')) h.output.push(`[${args[0]} ${c.pid}] ${d}`);
      });
      c.stderr!.on('data', (d: Buffer) => h.output.push(`[${args[0]} ${c.pid}] ${d}`));
      children.push(c);
      return c;
    },
    ingest: () =>
      h.solgate(['ingest', '--rpc', net.url], { SOLGATE_START_SLOT: '0', SOLGATE_POLL_INTERVAL_MS: '20', SOLGATE_INGEST_FETCH_ACCOUNTS: 'false', SOLGATE_OFFCHAIN_FETCH: 'false' }),
    started: (c) => ready.has(c),
    until: (what, cond, ms, everyMs) => until(what, cond, ms, { output: h.output, everyMs }),
    async receiverDown() {
      downPort = h.rcv.port;
      await h.rcv.close();
    },
    async receiverUp() {
      h.rcv = await openReceiver(downPort);
    },
    async stop() {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      await h.rcv.close();
      await net.close();
      await t.drop();
    },
  };
  return h;
}

/** The signature a delivery is about (raw: the transaction's first signature; enhanced: `signature`). */
export function sigOf(r: Received): string {
  const x = JSON.parse(r.body)[0];
  return x.transaction?.signatures?.[0] ?? x.signature;
}

/** The signatures delivered to the webhook's path with a 200. */
export const deliveredTo = (received: Received[], h: FaultHook) => new Set(received.filter((r) => r.path === h.path && r.status === 200).map(sigOf));

/** The first outbox events not delivered yet, for a failure message. */
export async function undeliveredEvents(db: Db): Promise<unknown[]> {
  const { rows } = await db.query('SELECT webhook_id, state, attempts, last_error, next_attempt_at, slot FROM webhook_events WHERE state <> $1 ORDER BY position', ['delivered']);
  return rows.slice(0, 10);
}

/** How many outbox events are not delivered. */
export async function undeliveredCount(db: Db): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_events WHERE state <> 'delivered'`);
  return rows[0].n;
}

/**
 * Asserts for one webhook: nothing arrived that it does not match (`want`, its signatures), every request for one
 * transaction carried the same event id (SHA-256 of webhook and signature), and its first attempts went out in chain
 * order, one per wanted event (the failed ones from the attempt log, the successful ones from the receiver's arrivals). Returns the requests the webhook got.
 */
export async function expectHookInvariants(db: Db, received: Received[], h: FaultHook, want: Set<string>): Promise<Received[]> {
  const mine = received.filter((r) => r.path === h.path);
  const ids = new Map<string, Set<string>>();
  for (const r of mine) {
    const sig = sigOf(r);
    expect(want.has(sig), `${h.path}: unexpected ${sig}`).toBe(true);
    ids.set(sig, (ids.get(sig) ?? new Set()).add(String(r.headers['webhook-id'])));
  }
  for (const [sig, set] of ids) expect([...set]).toEqual([eventId(h.id, sig)]);
  // First attempts that failed are in the attempt log, in the order they were made.
  const { rows } = await db.query<{ position: number }>(
    `SELECT e.position FROM webhook_attempts a JOIN webhook_events e ON e.id = a.event_id WHERE a.webhook_id = $1 AND a.attempt = 1 ORDER BY a.id`,
    [h.id],
  );
  const failedFirst = rows.map((r) => Number(r.position));
  expect(failedFirst).toEqual([...failedFirst].sort((a, b) => a - b));
  // An event whose first attempt succeeded keeps it in its row (migration 052); the receiver got those in the order
  // they were sent (first arrival of each).
  const { rows: okFirst } = await db.query<{ signature: string; position: number }>(
    `SELECT signature, position FROM webhook_events WHERE webhook_id = $1 AND attempts = 1 AND delivered_latency_ms IS NOT NULL`,
    [h.id],
  );
  const positionOf = new Map(okFirst.map((r) => [r.signature, Number(r.position)]));
  const arrived = [...new Set(mine.map((r) => positionOf.get(sigOf(r))).filter((p) => p !== undefined))];
  expect(arrived).toEqual([...arrived].sort((a, b) => a - b));
  expect(arrived).toHaveLength(okFirst.length);
  // One first attempt per wanted event.
  expect(new Set([...failedFirst, ...arrived]).size).toBe(want.size);
  return mine;
}

/** Each kind of fault happened (`errors`: the failed attempts' errors): HTTP 500, connection refused, timeout. */
export function expectEachFault(errors: string): void {
  expect(errors).toMatch(/HTTP 500/);
  expect(errors).toMatch(/ECONNREFUSED/);
  expect(errors).toMatch(/timeout/);
}
