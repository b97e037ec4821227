/**
 * The dashboard in a real browser: `solgate serve` as a child process (no cluster, a fresh database, an admin token,
 * usage flushed every 200 ms) and Debian's `chromium` driven by playwright-core. Signs in (a wrong token first),
 * creates a key named "browser test key" on the developer plan, reads the key shown once, calls the Wallet API with
 * it, sees the calls in the key's usage (total, per-method table, chart), edits its allow-list in the page (403, then
 * 200 again; a bad entry shows the API's message), sees a webhook it creates with its delivery log, revokes the key in the page (confirmation accepted) and sees the
 * API answer 401.
 *
 * CI installs chromium (.ci/run) and this test fails there without it; elsewhere it skips when /usr/bin/chromium is
 * missing. A screenshot of the signed-in page is written to $SOLGATE_SCREENSHOT_DIR (default the OS temp dir).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { freePort } from '../helpers/net.js';

const CHROMIUM = process.env.SOLGATE_CHROMIUM ?? '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const IN_CI = !!process.env.CI;
const ROOT = join(import.meta.dirname, '..', '..');
const TOKEN = 'browser-test-admin-token-0123456789';
const WALLET = 'Gv1ZyXGeGx7kRD6jPESjGJvcvPGTmkyNTEqMGJgHVkuT';
const KEY_NAME = 'browser test key';

if (!HAVE_CHROMIUM && !IN_CI) console.warn(`dashboard browser test skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium)`);

describe.skipIf(!HAVE_CHROMIUM && !IN_CI)('dashboard in Chromium', () => {
  let server: ChildProcess | null = null;
  let output = '';
  let browser: Browser | null = null;
  let page: Page;
  let base: string;
  let dataDir: string | null = null;
  let t: TestDb | null = null;

  beforeAll(async () => {
    if (!HAVE_CHROMIUM) throw new Error(`Chromium is missing at ${CHROMIUM}: CI must install it (apt-get install -y chromium in .ci/run)`);
    // The database: a fresh one on the PostgreSQL server when DATABASE_URL is set, else embedded in a temp dir.
    let dbEnv: Record<string, string>;
    if (process.env.DATABASE_URL) {
      t = await createTestDb();
      dbEnv = { DATABASE_URL: t.url! };
    } else {
      dataDir = mkdtempSync(join(tmpdir(), 'solgate-dashboard-'));
      dbEnv = { DATABASE_URL: '', SOLGATE_DATA_DIR: dataDir };
    }
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, [join(ROOT, 'bin', 'solgate.js'), 'serve'], {
      cwd: ROOT,
      env: {
        ...process.env, ...dbEnv, PORT: String(port), HOST: '127.0.0.1', SOLANA_RPC_URL: '', LOG_LEVEL: 'warn',
        SOLGATE_ADMIN_TOKEN: TOKEN, SOLGATE_USAGE_FLUSH_MS: '200', SOLGATE_OFFCHAIN_FETCH: 'false', SOLGATE_WEBHOOK_CONCURRENCY: '0',
        SOLGATE_WEBHOOKS_ALLOW_HTTP: 'true', SOLGATE_WEBHOOKS_ALLOW_PRIVATE: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (b) => (output += b));
    server.stderr!.on('data', (b) => (output += b));
    const deadline = Date.now() + 90_000;
    while (!(await fetch(`${base}/health`).then((r) => r.ok, () => false))) {
      if (server.exitCode !== null) throw new Error(`solgate serve exited (${server.exitCode}): ${output}`);
      if (Date.now() > deadline) throw new Error(`solgate serve did not start: ${output}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 1100 } })).newPage();
    page.on('pageerror', (e) => (output += `\npage error: ${e.message}`));
    page.on('dialog', (d) => void d.accept());
  });

  afterAll(async () => {
    await browser?.close().catch(() => {});
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server!.once('exit', r));
      server.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      if (server.exitCode === null) server.kill('SIGKILL');
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    await t?.drop().catch(() => {});
  });

  const balances = (key: string) => fetch(`${base}/v1/wallet/${WALLET}/balances`, { headers: { 'x-api-key': key } });

  it('signs in, creates a key, sees its usage, revokes it', async () => {
    await page.goto(`${base}/dashboard`);

    // A wrong token is refused with a message; the right one opens the dashboard.
    await page.getByLabel('Admin token').fill('not-the-admin-token-at-all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/not accepted/);
    await page.getByLabel('Admin token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();

    // Create the key; it is shown once.
    const form = page.getByRole('form', { name: 'Create a key' });
    await form.getByLabel('Name').fill(KEY_NAME);
    await form.getByLabel('Plan').selectOption('developer');
    await form.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('region', { name: 'New API key' });
    await shown.waitFor();
    const key = (await shown.locator('code').textContent())!.trim();
    expect(key).toMatch(/^sg_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    const row = page.locator('#keys-table tbody tr', { has: page.getByRole('rowheader', { name: KEY_NAME }) });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain('developer');
    expect(await row.textContent()).not.toContain(key);

    // Use it against the API.
    for (let i = 0; i < 3; i++) expect((await balances(key)).status).toBe(200);

    // Its usage appears (the recorder flushes every 200 ms; Refresh re-reads).
    await page.getByRole('button', { name: `Usage of ${KEY_NAME}` }).click();
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return page.locator('#usage-total').textContent();
      }, { timeout: 30_000, interval: 500 })
      .toMatch(/: 3 calls, 300 credits$/);
    const methods = page.getByRole('table', { name: 'Usage by method' });
    expect(await methods.getByRole('row', { name: /wallet\.balances/ }).textContent()).toMatch(/wallet\.balances\s*3\s*300/);
    const today = new Date().toISOString().slice(0, 10);
    expect(await page.locator(`#usage-chart rect.bar[data-day="${today}"]`).getAttribute('data-value')).toBe('3');
    expect(await page.getByRole('img', { name: /Calls per day/ }).count()).toBe(1);
    // The keys table shows the month's credits too.
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return row.textContent();
      }, { timeout: 30_000, interval: 500 })
      .toMatch(/300 \/ 10,000,000 \(3 calls\)/);

    // Edit the allow-list in the page: a call from 127.0.0.1 is refused (403) until the list admits it.
    await page.getByRole('button', { name: `Edit ${KEY_NAME}` }).click();
    const edit = page.getByRole('form', { name: `Edit key “${KEY_NAME}”` });
    await edit.getByLabel('Allowed IPs').fill('10.1.2.3\n192.168.0.0/16');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => row.textContent()).toContain('10.1.2.3, 192.168.0.0/16');
    expect((await balances(key)).status).toBe(403);
    await page.getByRole('button', { name: `Edit ${KEY_NAME}` }).click();
    await edit.getByLabel('Allowed IPs').fill('127.0.0.1');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => row.textContent()).toContain('127.0.0.1');
    expect((await balances(key)).status).toBe(200);
    // A bad entry is refused with the API's message.
    await page.getByRole('button', { name: `Edit ${KEY_NAME}` }).click();
    await edit.getByLabel('Allowed IPs').fill('not-an-ip');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.locator('#message').textContent()).toMatch(/"not-an-ip" is not an IP address or CIDR range/);
    await edit.getByRole('button', { name: 'Cancel' }).click();

    // A webhook of the key appears in the webhooks list, with its (empty: nothing is indexed) delivery log.
    const hookUrl = 'http://127.0.0.1:9/browser-test-hook';
    const made = await fetch(`${base}/v0/webhooks?api-key=${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ webhookURL: hookUrl, webhookType: 'enhanced', transactionTypes: ['ANY'], accountAddresses: [WALLET] }),
    });
    expect(made.status, await made.clone().text()).toBe(200);
    await page.getByRole('button', { name: 'Refresh' }).click();
    const hookRow = page.locator('#webhooks-table tbody tr', { has: page.getByRole('rowheader', { name: hookUrl }) });
    await expect.poll(() => hookRow.textContent()).toContain(KEY_NAME);
    await page.getByRole('button', { name: `Delivery log of ${hookUrl}` }).click();
    await page.getByRole('heading', { name: `Delivery log of ${hookUrl}` }).waitFor();
    await expect.poll(() => page.getByText('No deliveries in the retention window.').isVisible()).toBe(true);

    await page.getByRole('button', { name: 'Dismiss' }).click();
    expect(await shown.isHidden()).toBe(true);
    const shot = join(process.env.SOLGATE_SCREENSHOT_DIR ?? tmpdir(), 'solgate-dashboard.png');
    await page.screenshot({ path: shot, fullPage: true });

    // Revoke in the page (the confirmation is accepted): the key is refused at once.
    await page.getByRole('button', { name: `Revoke ${KEY_NAME}` }).click();
    await expect.poll(() => row.locator('.badge').textContent()).toBe('revoked');
    const after = await balances(key);
    expect(after.status).toBe(401);
    expect(((await after.json()) as { error: string }).error).toMatch(/revoked/);
    expect(output).not.toMatch(/page error/);
  });
});
