/**
 * Graceful shutdown of a real `solgate serve` process (embedded database, no ingestion): on SIGTERM it stops
 * accepting connections, an idle keep-alive connection does not hold it up, the request in flight (a JSON-RPC call
 * on a keep-alive connection, its body still arriving when the signal comes) completes with 200 and
 * `Connection: close`, and the process exits 0 right after (not at the drain bound).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../helpers/net.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const dataDir = mkdtempSync(join(tmpdir(), 'solgate-serve-shutdown-'));
const env = { ...process.env, DATABASE_URL: '', SOLGATE_DATA_DIR: dataDir, LOG_LEVEL: 'info', SOLANA_RPC_URL: '', REDIS_URL: '' };
let server: ChildProcess | null = null;

afterAll(async () => {
  if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const readBody = (res: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let s = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => (s += c));
    res.on('end', () => resolve(s));
    res.on('error', reject);
  });

describe('solgate serve: graceful shutdown', () => {
  it('SIGTERM: stops accepting, finishes the request in flight with 200, exits 0', async () => {
    const created = await run(process.execPath, [join(ROOT, 'bin', 'solgate.js'), 'keys', 'create', '--name', 'shutdown', '--json'], { env: { ...env, LOG_LEVEL: 'warn' }, cwd: ROOT, timeout: 120_000 });
    const { key } = JSON.parse(created.stdout) as { key: string };
    const port = await freePort();
    let output = '';
    server = spawn(process.execPath, [join(ROOT, 'bin', 'solgate.js'), 'serve'], { env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    server.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => server!.once('exit', (code) => resolve(code)));

    const deadline = Date.now() + 60_000;
    while (!(await fetch(`http://127.0.0.1:${port}/health`).then((x) => x.ok, () => false))) {
      if (Date.now() > deadline) throw new Error(`serve did not start:\n${output}`);
      await sleep(250);
    }

    // An idle keep-alive connection: must not keep the server from closing.
    const agent = new Agent({ keepAlive: true, keepAliveMsecs: 60_000 });
    const idle = await new Promise<number>((resolve, reject) =>
      request({ host: '127.0.0.1', port, path: '/health', agent }, (res) => readBody(res).then(() => resolve(res.statusCode!), reject)).on('error', reject).end(),
    );
    expect(idle).toBe(200);

    // The request in flight: headers and half of the body sent; the rest comes after the signal.
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'getIndexerSlot' });
    const half = Math.floor(body.length / 2);
    const inflight = request({
      host: '127.0.0.1', port, path: '/', method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'x-api-key': key },
    });
    const response = new Promise<{ status: number; text: string; connection?: string }>((resolve, reject) => {
      inflight.on('response', (res) => readBody(res).then((text) => resolve({ status: res.statusCode!, text, connection: res.headers.connection }), reject));
      inflight.on('error', reject);
    });
    inflight.write(body.slice(0, half));
    await sleep(500);

    server.kill('SIGTERM');
    // New connections are refused once shutdown has begun.
    const refusedBy = Date.now() + 10_000;
    while (await fetch(`http://127.0.0.1:${port}/health`).then(() => true, () => false)) {
      if (Date.now() > refusedBy) throw new Error(`serve still accepts connections after SIGTERM:\n${output}`);
      await sleep(100);
    }
    // (the log line may reach this pipe after the refusal is seen)
    while (!output.includes('solgate: shutting down')) {
      if (Date.now() > refusedBy) throw new Error(`no shutdown log line:\n${output}`);
      await sleep(50);
    }
    // Still running: it waits for the request in flight.
    await sleep(500);
    expect(server.exitCode).toBeNull();

    inflight.end(body.slice(half));
    const r = await response;
    expect(r.status).toBe(200);
    expect(r.connection).toBe('close');
    expect(JSON.parse(r.text)).toMatchObject({ jsonrpc: '2.0', id: 7, result: expect.any(Number) });

    // Well before the 30 s drain bound: the in-flight request's keep-alive connection is closed after its response.
    const code = await Promise.race([exited, sleep(10_000).then(() => 'timeout' as const)]);
    expect(code, output).toBe(0);
    agent.destroy();
  }, 120_000);
});
