/**
 * Photon's error forms (helius-labs/photon src/api/error.rs), as SolgateErrors: request values of the wrong type or
 * shape are params errors (-32602, what jsonrpsee answers when serde rejects the request); application failures
 * are -32000 with Photon's prefixes ("Validation Error: …", "Record Not Found: …", "Node is behind N slots").
 */
import { SolgateError } from '../../core/errors.js';

/** -32602: the params do not deserialize (missing field, unknown field, wrong type, not base58, > 1000 …). */
export function paramsError(detail: string): SolgateError {
  return new SolgateError('INVALID_PARAMS', `Invalid params: ${detail}`);
}

/** -32000 `Validation Error: …`. */
export function validationError(message: string): SolgateError {
  return new SolgateError('INVALID_ARGUMENT', `Validation Error: ${message}`);
}

/** -32000 `Record Not Found: …`. */
export function recordNotFound(message: string): SolgateError {
  return new SolgateError('NOT_FOUND', `Record Not Found: ${message}`);
}

const PREFIXES = ['Validation Error: ', 'Record Not Found: ', 'Invalid params', 'Node is behind '];

/**
 * Runs `f` and gives a bare -32000 error thrown below the API (the store's cursor checks, the tree maths' "already
 * exists") Photon's "Validation Error: " prefix; everything else passes through unchanged.
 */
export function asValidation<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw prefixed(e);
  }
}

/** The async form of {@link asValidation}. */
export async function asValidationAsync<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    throw prefixed(e);
  }
}

function prefixed(e: unknown): unknown {
  if (e instanceof SolgateError && e.code === 'INVALID_ARGUMENT' && !PREFIXES.some((p) => e.message.startsWith(p)))
    return new SolgateError('INVALID_ARGUMENT', `Validation Error: ${e.message}`, { cause: e });
  return e;
}
