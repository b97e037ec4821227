/**
 * SSRF guard for outbound HTTP to URLs that come from outside (on-chain metadata URIs, webhook targets).
 *
 * Policy: only `http:`/`https:` URLs; the target host's addresses must all be public unicast (the ranges refused are
 * listed in `address-policy.ts`). `allowPrivate` lifts the address policy entirely (trusted networks, tests);
 * `allowCidrs` lifts it for the listed ranges only.
 *
 * Enforcement happens where the connection is made, so a DNS answer cannot change between the check and the
 * connect (DNS rebinding): `createGuardedAgent` gives undici a `connect.lookup` that resolves every address of
 * the host and fails the connection when any is refused. Literal-IP hosts never reach `lookup` (Node skips DNS
 * for them), so `checkUrl` refuses those before any request. Redirects are followed manually, hop by hop, and
 * each hop goes through the same two checks.
 *
 * This module is the guard's public entry point and re-exports its parts: `address-policy.ts` (address
 * classification), `url-checks.ts` (URL, redirect and up-front DNS checks), `guarded-agent.ts` (the connect-time
 * lookup and agent), `guarded-request.ts` (the exchange itself) and `ssrf-errors.ts`.
 */
export { assertAddressAllowed, refusedRange, type SsrfPolicy } from './address-policy.js';
export { GuardedFetchError, SsrfError, type GuardedFetchErrorKind } from './ssrf-errors.js';
export { assertUrlAllowed, checkRedirect, checkUrl, resolveAndCheck } from './url-checks.js';
export { createGuardedAgent, guardedLookup, type GuardedAgent, type GuardedAgentOptions, type GuardedConnection } from './guarded-agent.js';
export { checkTarget, guardedRequest, postOnConnection, type CheckedTarget, type GuardedRequestOptions, type GuardedResponse } from './guarded-request.js';
