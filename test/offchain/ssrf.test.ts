/** The SSRF guard: address policy, URL checks, DNS names, redirects, and the connect-time check. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  assertUrlAllowed,
  checkRedirect,
  checkUrl,
  createGuardedAgent,
  guardedRequest,
  GuardedFetchError,
  refusedRange,
  resolveAndCheck,
  SsrfError,
} from '../../src/net/ssrf.js';

describe('refusedRange: literal addresses', () => {
  const refused: [string, string][] = [
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['169.254.169.254', 'linkLocal'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.254', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.10', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'ipv4Mapped:loopback'],
    ['::ffff:7f00:1', 'ipv4Mapped:loopback'],
    ['::ffff:10.0.0.1', 'ipv4Mapped:private'],
    ['::ffff:169.254.169.254', 'ipv4Mapped:linkLocal'],
    ['64:ff9b::a9fe:a9fe', 'rfc6052:linkLocal'],
    ['::7f00:1', 'notGlobalUnicast'], // deprecated IPv4-compatible ::127.0.0.1
    ['fec0::1', 'deprecatedSiteLocal'],
    ['2001:db8::1', 'reserved'],
  ];
  it.each(refused)('%s is refused (%s)', (ip, range) => {
    expect(refusedRange(ip)).toBe(range);
  });

  it('the dotted IPv4-compatible spelling is refused too', () => {
    expect(refusedRange('::127.0.0.1')).not.toBeNull();
    expect(refusedRange('::8.8.8.8')).not.toBeNull(); // not global unicast either way
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])('%s is public', (ip) => {
    expect(refusedRange(ip)).toBeNull();
  });

  it('allowPrivate lifts the policy; allowCidrs lifts it for the listed ranges only (also for mapped forms)', () => {
    expect(refusedRange('127.0.0.1', { allowPrivate: true })).toBeNull();
    expect(refusedRange('169.254.169.254', { allowPrivate: true })).toBeNull();
    const p = { allowCidrs: ['127.0.0.1/32', '10.8.0.0/16'] };
    expect(refusedRange('127.0.0.1', p)).toBeNull();
    expect(refusedRange('::ffff:127.0.0.1', p)).toBeNull();
    expect(refusedRange('10.8.3.4', p)).toBeNull();
    expect(refusedRange('127.0.0.2', p)).toBe('loopback');
    expect(refusedRange('10.9.0.1', p)).toBe('private');
  });
});

describe('checkUrl', () => {
  it('accepts http and https URLs to public or named hosts', () => {
    expect(checkUrl('https://arweave.net/abc').href).toBe('https://arweave.net/abc');
    expect(checkUrl('http://8.8.8.8/x').hostname).toBe('8.8.8.8');
  });

  it('refuses other schemes, credentials, and literal non-public hosts in any notation', () => {
    for (const u of ['ftp://example.com/a', 'file:///etc/passwd', 'gopher://x', 'data:application/json,{}', 'ipfs://bafy/1.json'])
      expect(() => checkUrl(u), u).toThrow(SsrfError);
    expect(() => checkUrl('https://user:pw@example.com/')).toThrow(/credentials/);
    for (const u of [
      'http://127.0.0.1/',
      'http://[::1]:8080/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:a9fe:a9fe]/latest/meta-data',
      'http://169.254.169.254/latest/meta-data',
      'http://2130706433/', // 127.0.0.1 as one number
      'http://0x7f.1/', // 127.0.0.1 in hex shorthand
      'http://0177.0.0.1/', // octal
      'http://0/',
      'http://10.0.0.1:6379/',
      'http://[fd00::1]/',
    ])
      expect(() => checkUrl(u), u).toThrow(SsrfError);
    expect(() => checkUrl('not a url')).toThrow(GuardedFetchError);
  });

  it('checkRedirect resolves relative Locations and applies the same checks', () => {
    expect(checkRedirect('https://example.com/a/b.json', '../c.json').href).toBe('https://example.com/c.json');
    expect(() => checkRedirect('https://example.com/a', 'http://169.254.169.254/')).toThrow(SsrfError);
    expect(() => checkRedirect('https://example.com/a', 'file:///etc/passwd')).toThrow(/scheme/);
    expect(checkRedirect('http://127.0.0.1:1/', '/next', { allowPrivate: true }).href).toBe('http://127.0.0.1:1/next');
  });
});

describe('DNS names', () => {
  it('localhost resolves to loopback and is refused; allowed with allowPrivate', async () => {
    await expect(assertUrlAllowed('http://localhost:1234/x')).rejects.toThrow(SsrfError);
    await expect(assertUrlAllowed('http://localhost:1234/x')).rejects.toThrow(/resolves to (127\.0\.0\.1|::1)/);
    await expect(assertUrlAllowed('http://localhost:1234/x', { allowPrivate: true })).resolves.toBeInstanceOf(URL);
  });

  it('a name is refused when ANY of its addresses is refused', async () => {
    const lookup = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ];
    await expect(resolveAndCheck('mixed.example', {}, lookup)).rejects.toThrow(/10\.0\.0\.5/);
    const pub = async () => [{ address: '93.184.216.34', family: 4 }, { address: '2606:2800:220:1::1', family: 6 }];
    await expect(resolveAndCheck('public.example', {}, pub)).resolves.toHaveLength(2);
  });
});

describe('guardedRequest against a local server', () => {
  let server: Server;
  let base: string;
  let hits: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      const port = (server.address() as AddressInfo).port;
      if (req.url === '/ok') {
        res.setHeader('content-type', 'application/json');
        res.end('{"ok":true}');
      } else if (req.url === '/to-ok') {
        res.writeHead(302, { location: '/ok' });
        res.end();
      } else if (req.url === '/to-metadata') {
        res.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' });
        res.end();
      } else if (req.url === '/to-other-loopback') {
        res.writeHead(307, { location: `http://127.0.0.2:${port}/ok` });
        res.end();
      } else if (req.url === '/to-localhost-name') {
        res.writeHead(302, { location: `http://localhost:${port}/ok` });
        res.end();
      } else if (req.url === '/to-file') {
        res.writeHead(302, { location: 'file:///etc/passwd' });
        res.end();
      } else if (req.url?.startsWith('/loop')) {
        const n = Number(req.url.slice(5) || '0');
        res.writeHead(302, { location: `/loop${n + 1}` });
        res.end();
      } else {
        res.statusCode = 404;
        res.end('nope');
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it('the default policy refuses the loopback server before connecting', async () => {
    const agent = createGuardedAgent();
    hits = [];
    await expect(guardedRequest(`${base}/ok`, { agent })).rejects.toThrow(SsrfError);
    expect(hits).toEqual([]);
    await agent.close();
  });

  it('a name resolving to loopback is refused at connect time by the agent (no request reaches the server)', async () => {
    const agent = createGuardedAgent({});
    hits = [];
    const port = (server.address() as AddressInfo).port;
    const err = await guardedRequest(`http://localhost:${port}/ok`, { agent }).catch((e) => e);
    expect(err).toBeInstanceOf(SsrfError);
    expect((err as SsrfError).range).toMatch(/loopback/);
    expect(hits).toEqual([]);
    // The resolver answer is checked at connect, whatever an earlier check saw (rebinding): a name that
    // resolves to the allowed server's address under one resolver and to loopback under the agent's is refused.
    const rebinding = createGuardedAgent({}, { lookupAll: async () => [{ address: '127.0.0.1', family: 4 }] });
    await expect(guardedRequest(`http://public.example:${port}/ok`, { agent: rebinding })).rejects.toThrow(/public\.example.*127\.0\.0\.1/);
    expect(hits).toEqual([]);
    await agent.close();
    await rebinding.close();
  });

  it('allowed hop → redirect followed; redirect to a refused target is not followed', async () => {
    // Only 127.0.0.1 is allowed: the first hop is fine, the second must be refused.
    const agent = createGuardedAgent({ allowCidrs: ['127.0.0.1/32'] });
    const ok = await guardedRequest(`${base}/to-ok`, { agent });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body.toString())).toEqual({ ok: true });
    expect(ok.redirects).toEqual([`${base}/ok`]);

    hits = [];
    await expect(guardedRequest(`${base}/to-metadata`, { agent })).rejects.toThrow(/169\.254\.169\.254.*link-local/);
    await expect(guardedRequest(`${base}/to-other-loopback`, { agent })).rejects.toThrow(/127\.0\.0\.2/);
    await expect(guardedRequest(`${base}/to-file`, { agent })).rejects.toThrow(/scheme file:/);
    // localhost also resolves to 127.0.0.1 here, but may resolve to ::1 too — refused unless every address is allowed.
    const viaName = await guardedRequest(`${base}/to-localhost-name`, { agent }).then(
      (r) => ({ ok: true as const, status: r.status }),
      (e: unknown) => ({ ok: false as const, e }),
    );
    if (viaName.ok) expect(viaName.status).toBe(200);
    else expect(viaName.e).toBeInstanceOf(SsrfError);
    expect(hits.filter((h) => h === '/ok').length).toBe(viaName.ok ? 1 : 0);
    await agent.close();
  });

  it('follows at most maxRedirects', async () => {
    const agent = createGuardedAgent({ allowPrivate: true });
    const r = await guardedRequest(`${base}/to-ok`, { agent, maxRedirects: 1 });
    expect(r.status).toBe(200);
    const err = await guardedRequest(`${base}/loop0`, { agent, maxRedirects: 3 }).catch((e) => e);
    expect(err).toBeInstanceOf(GuardedFetchError);
    expect((err as GuardedFetchError).kind).toBe('too_many_redirects');
    await agent.close();
  });
});
