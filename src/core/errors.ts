/**
 * The one error type of solgate. Every failure that reaches a client is a `SolgateError` with a stable code;
 * `src/api/wire/errors.ts` maps each code once to the HTTP status and the body of each wire format.
 */
export type SolgateErrorCode =
  | 'INVALID_PARAMS' // params that do not fit the method's schema (wrong type, unknown field): 400 / -32602
  | 'INVALID_ARGUMENT' // params of the right shape with a bad value (bad pubkey, pagination): 400 / -32000
  | 'INVALID_REQUEST' // malformed envelope: 400 / -32600
  | 'PARSE_ERROR' // unparseable JSON body: 400 / -32700
  | 'METHOD_NOT_FOUND' // 404 / -32601
  | 'NOT_FOUND' // resource unknown: 404 / -32000
  | 'UNAUTHORIZED' // missing or wrong key: 401 / -32401
  | 'FORBIDDEN' // IP or plan not allowed: 403 / -32403
  | 'RATE_LIMITED' // 429 / -32429
  | 'PAYLOAD_TOO_LARGE' // 413
  | 'NOT_SUPPORTED' // feature not available yet: 400
  | 'UNAVAILABLE' // dependency down: 503 / -32002
  | 'UPSTREAM_TIMEOUT' // every upstream timed out: 504 / -32003
  | 'INDEX_BEHIND' // the index has not reached the slot an answer needs (try again): 503 / -32016
  | 'INTERNAL'; // bug or unexpected failure: 500 / -32603

export class SolgateError extends Error {
  readonly code: SolgateErrorCode;
  /** Extra human-readable detail (Wallet REST `details`). */
  readonly details?: string;
  /** Structured context for logs; never sent to clients, except `data` (the JSON-RPC error's `data`). */
  readonly context?: Record<string, unknown>;
  /** Seconds a client should wait (429). */
  readonly retryAfter?: number;

  constructor(
    code: SolgateErrorCode,
    message: string,
    opts: { details?: string; context?: Record<string, unknown>; cause?: unknown; retryAfter?: number } = {},
  ) {
    super(message, opts.cause !== undefined ? { cause: opts.cause } : undefined);
    this.name = 'SolgateError';
    this.code = code;
    this.details = opts.details;
    this.context = opts.context;
    this.retryAfter = opts.retryAfter;
  }
}

export const invalidParams = (message: string, details?: string) =>
  new SolgateError('INVALID_PARAMS', message, { details });

export const notFound = (message: string, details?: string) => new SolgateError('NOT_FOUND', message, { details });

export function isSolgateError(e: unknown): e is SolgateError {
  return e instanceof SolgateError;
}

/**
 * A failure of the process's own set-up (configuration, database, ports, cluster URL, the embedded data directory's
 * owner) whose message already names the cause and the fix in one line. The CLI prints just that line and exits
 * non-zero; the stack trace only at LOG_LEVEL=debug.
 */
export class StartupError extends Error {
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super(message, opts.cause !== undefined ? { cause: opts.cause } : undefined);
    this.name = 'StartupError';
  }
}

/** A failure's message with its cause's code (e.g. `fetch failed (ECONNREFUSED)`), for one-line reports. */
export function errorText(e: unknown): string {
  const err = e as { message?: unknown; cause?: { code?: unknown; message?: unknown } } | null;
  const message = typeof err?.message === 'string' ? err.message : String(e);
  const c = err?.cause;
  const cause = typeof c?.code === 'string' ? c.code : typeof c?.message === 'string' ? c.message : null;
  return cause && !message.includes(cause) ? `${message} (${cause})` : message;
}
