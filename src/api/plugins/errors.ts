/**
 * Turns whatever a route throws (SolgateError, Fastify validation or body-parsing errors, bugs) into a
 * SolgateError with a clear message. Rendering into a wire format happens in each interface's scope.
 */
import type { FastifyError } from 'fastify';
import { SolgateError } from '../../core/errors.js';
import { toSolgateError } from '../wire/errors.js';

interface AjvError {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

function describeValidation(e: FastifyError): string {
  const v = (e.validation ?? [])[0] as AjvError | undefined;
  const where = e.validationContext ?? 'request';
  if (!v) return e.message;
  let field = (v.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  if (v.keyword === 'required' && typeof v.params?.missingProperty === 'string')
    return `Missing required ${where} parameter '${field ? `${field}.` : ''}${v.params.missingProperty}'`;
  if (v.keyword === 'enum' && Array.isArray(v.params?.allowedValues))
    return `Invalid ${where} parameter '${field}': must be one of ${(v.params.allowedValues as unknown[]).join(', ')}`;
  // The whole body (or query) is wrong, e.g. a route that needs a JSON object got none: "Invalid body: must be object".
  if (!field) return `Invalid ${where}: ${v.message ?? 'invalid value'}`;
  return `Invalid ${where} parameter '${field}': ${v.message ?? 'invalid value'}`;
}

export function normalizeError(err: unknown): SolgateError {
  if (err instanceof SolgateError) return err;
  const fe = err as FastifyError & { code?: string; statusCode?: number };
  if (fe && fe.validation) return new SolgateError('INVALID_PARAMS', describeValidation(fe));
  switch (fe?.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new SolgateError('PARSE_ERROR', 'Invalid JSON body', { details: fe.message });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new SolgateError('PAYLOAD_TOO_LARGE', 'Request body too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new SolgateError('INVALID_REQUEST', 'Unsupported Content-Type; send application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new SolgateError('INVALID_REQUEST', 'Invalid Content-Length');
  }
  if (fe?.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) return new SolgateError('INVALID_REQUEST', fe.message);
  return toSolgateError(err);
}
