/**
 * The start-up check of a cluster RPC URL: one `getSlot`, with a short deadline, so a URL that does not resolve,
 * refuses connections, rejects the credentials or is not a Solana JSON-RPC endpoint stops the process within
 * seconds with one line naming the variable, instead of a retry loop that stays silent for a minute.
 * Refused connections (for 3 s), 429 and 502–504 answers (until the deadline) are tried again: a node that is just
 * starting, or a busy one.
 */
import { fetch } from 'undici';
import { StartupError } from '../core/errors.js';

export interface ProbeOptions {
  /** The variable or flag the URL came from, named in the message. */
  source: string;
  /** Overall deadline (ms). */
  deadlineMs?: number;
}

function cause(err: unknown): string {
  const e = err as { cause?: { code?: string; message?: string }; code?: string; message?: string; name?: string };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'no answer in time';
  return e?.cause?.code ?? e?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}

/** Resolves with the cluster's slot, or throws a StartupError naming the problem with `url`. */
export async function probeClusterRpc(url: string, o: ProbeOptions): Promise<number> {
  const started = Date.now();
  const deadline = started + (o.deadlineMs ?? 10_000);
  const shown = redactUrl(url);
  let last = '';
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot', params: [{ commitment: 'confirmed' }] }),
        signal: AbortSignal.timeout(Math.min(left, 5000)),
      });
      const text = await res.text();
      if (res.status === 401 || res.status === 403)
        throw new StartupError(`the cluster RPC ${shown} (${o.source}) refused the request (HTTP ${res.status}): check the API key in the URL`);
      if (res.status === 429 || res.status === 502 || res.status === 503 || res.status === 504) {
        last = `HTTP ${res.status}`;
      } else {
        const body = parseBody(text);
        if (body && typeof body.result === 'number') return body.result;
        throw new StartupError(
          `${shown} (${o.source}) is not a Solana JSON-RPC endpoint: getSlot answered HTTP ${res.status}` +
            `${body?.error?.message ? ` "${body.error.message}"` : text ? ` ${JSON.stringify(text.slice(0, 80))}` : ''}`,
        );
      }
    } catch (err) {
      if (err instanceof StartupError) throw err;
      const c = cause(err);
      if (c === 'ENOTFOUND' || c === 'EAI_AGAIN')
        throw new StartupError(`cannot resolve the host of ${o.source} ${shown} (${c}): check the URL`);
      if (c === 'ERR_INVALID_URL' || /invalid url/i.test(c)) throw new StartupError(`${o.source} is not a valid URL: ${shown}`);
      if (/bad port/i.test(c)) throw new StartupError(`${o.source} ${shown} uses a port that HTTP clients refuse to connect to: use the RPC's real port`);
      last = c;
      // Nothing listens: a node that is starting gets a few seconds, not the whole deadline.
      if (c === 'ECONNREFUSED' && Date.now() - started > 3000) break;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new StartupError(`cannot reach the cluster RPC ${shown} (${o.source}): ${last}; is it running, and is the URL right?`);
}

/** The URL without credentials or query (API keys often travel in either). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    const q = u.search ? '?…' : '';
    u.search = '';
    return `${u.toString()}${q}`;
  } catch {
    return url;
  }
}

function parseBody(text: string): { result?: unknown; error?: { message?: string } } | null {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' ? (v as { result?: unknown; error?: { message?: string } }) : null;
  } catch {
    return null;
  }
}
