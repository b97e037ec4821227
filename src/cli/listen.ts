/** Listening helpers of `serve`: a port check before start-up, listen errors as one-line start-up errors. */
import { createServer } from 'node:net';
import { StartupError } from '../core/errors.js';

/** Fails (StartupError) when `port` on `host` cannot be bound, before anything else starts. Port 0 always binds. */
export async function checkPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const srv = createServer();
    srv.once('error', (err) => reject(listenError(err, port, host)));
    srv.listen({ port, host, exclusive: true }, () => srv.close(() => resolve()));
  });
}

export function listenError(err: unknown, port: number, host: string): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return new StartupError(`port ${port} on ${host} is already in use (another solgate or another server?): stop it, or set PORT to a free port`, { cause: err });
  if (code === 'EACCES') return new StartupError(`not allowed to listen on port ${port} (${code}): use a port above 1023 (PORT) or run with the needed rights`, { cause: err });
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return new StartupError(`cannot listen on HOST ${host} (${code}): use an address of this machine, e.g. 0.0.0.0 or 127.0.0.1`, { cause: err });
  return err as Error;
}

/** The URL a process on this machine reaches the server at (a wildcard bind address becomes loopback). */
export function loopbackUrl(addr: ReturnType<import('node:net').Server['address']>, host: string): string {
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  const h = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  return `http://${h}:${port}`;
}
