/**
 * Off-chain tests against a local document server: the server on a free loopback port, and the real fetcher over
 * a test database with the production limits, allowed to reach 127.0.0.1 only and routing documents there.
 */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createOffchainFetcher, type OffchainFetcher, type OffchainFetcherConfig } from '../../src/offchain/fetcher.js';
import type { Db } from '../../src/store/db.js';

export interface DocServer {
  /** `http://127.0.0.1:port` */
  base: string;
  close(): Promise<void>;
}

/** An HTTP server answering with `handler` on 127.0.0.1 (a free port). */
export async function startDocServer(handler: RequestListener): Promise<DocServer> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** The off-chain fetcher over `db`; `rewriteUrl` routes document urls to the local server (the SSRF guard checks the result). */
export function localFetcher(db: Db, rewriteUrl: OffchainFetcherConfig['rewriteUrl']): OffchainFetcher {
  return createOffchainFetcher({
    db,
    logger: pino({ level: 'silent' }),
    config: {
      enabled: true,
      concurrency: 4,
      timeoutMs: 2000,
      maxBytes: 65536,
      maxRedirects: 3,
      maxAttempts: 3,
      retryBaseMs: 1000,
      ttlSeconds: 3600,
      allowPrivate: false,
      allowCidrs: ['127.0.0.1/32'],
      ipfsGateway: 'https://ipfs.io/ipfs/',
      arweaveGateway: 'https://arweave.net/',
      rewriteUrl,
    },
  });
}
