/**
 * The two ways the SSRF guard fails an outbound request: `SsrfError`, a target the policy refuses (never retryable),
 * and `GuardedFetchError`, any other failed exchange (bad URL, timeout, body too large, network). Their own module so
 * the address policy, the URL checks and the request loop can all throw them without importing each other.
 */
/** A target refused by the policy (never retryable). */
export class SsrfError extends Error {
  readonly code = 'SSRF_REFUSED';
  constructor(
    message: string,
    readonly target: string,
    /** The refused address and why (ipaddr.js range name or `scheme`). */
    readonly address?: string,
    readonly range?: string,
  ) {
    super(message);
    this.name = 'SsrfError';
  }
}

export type GuardedFetchErrorKind = 'bad_url' | 'timeout' | 'too_large' | 'too_many_redirects' | 'network' | 'aborted';

/** A failed exchange that is not an SSRF refusal. */
export class GuardedFetchError extends Error {
  constructor(
    readonly kind: GuardedFetchErrorKind,
    message: string,
    opts?: { cause?: unknown },
  ) {
    super(message, opts);
    this.name = 'GuardedFetchError';
  }
}
