/**
 * The one table mapping each SolgateError code to each wire format: HTTP status, the Wallet REST body
 * `{error, code, details?}` (code = HTTP status), and the JSON-RPC error `{code, message}` using the codes that
 * production clients observe (-32401 bad key, -32429 limited) and the open-source servers' -32602/-32000.
 */
import { SolgateError, type SolgateErrorCode } from '../../core/errors.js';

interface WireMapping {
  status: number;
  rpcCode: number;
}

export const ERROR_TABLE: Record<SolgateErrorCode, WireMapping> = {
  INVALID_PARAMS: { status: 400, rpcCode: -32602 },
  INVALID_ARGUMENT: { status: 400, rpcCode: -32000 },
  INVALID_REQUEST: { status: 400, rpcCode: -32600 },
  PARSE_ERROR: { status: 400, rpcCode: -32700 },
  METHOD_NOT_FOUND: { status: 404, rpcCode: -32601 },
  NOT_FOUND: { status: 404, rpcCode: -32000 },
  UNAUTHORIZED: { status: 401, rpcCode: -32401 },
  FORBIDDEN: { status: 403, rpcCode: -32403 },
  RATE_LIMITED: { status: 429, rpcCode: -32429 },
  PAYLOAD_TOO_LARGE: { status: 413, rpcCode: -32600 },
  NOT_SUPPORTED: { status: 400, rpcCode: -32000 },
  UNAVAILABLE: { status: 503, rpcCode: -32002 },
  UPSTREAM_TIMEOUT: { status: 504, rpcCode: -32003 },
  INDEX_BEHIND: { status: 503, rpcCode: -32016 },
  INTERNAL: { status: 500, rpcCode: -32603 },
};

/** Any thrown value → a SolgateError (unknown errors become INTERNAL with a generic message). */
export function toSolgateError(e: unknown): SolgateError {
  if (e instanceof SolgateError) return e;
  return new SolgateError('INTERNAL', 'Internal server error', { cause: e });
}

export function restErrorBody(e: SolgateError): { status: number; body: { error: string; code: number; details?: string } } {
  const { status } = ERROR_TABLE[e.code];
  const body: { error: string; code: number; details?: string } = { error: e.message, code: status };
  if (e.details !== undefined) body.details = e.details;
  return { status, body };
}

/** JSON-RPC 2.0 ids are a string, a number or null; any other value is answered as null (never echoed back). */
export const isRpcId = (v: unknown): v is string | number | null => v === null || typeof v === 'string' || typeof v === 'number';

export function rpcErrorBody(
  e: SolgateError,
  id: unknown,
): { status: number; body: { jsonrpc: '2.0'; error: { code: number; message: string; data?: unknown }; id: unknown } } {
  const { status, rpcCode } = ERROR_TABLE[e.code];
  // Transport-level refusals keep their HTTP status; application errors travel in a 200 like every JSON-RPC server.
  const httpStatus = ['UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED', 'PAYLOAD_TOO_LARGE', 'UNAVAILABLE'].includes(e.code) ? status : 200;
  // `data` where the error has a documented one (-32016's `{contextSlot}`, as agave sends it).
  const data = e.context?.data;
  return { status: httpStatus, body: { jsonrpc: '2.0', error: { code: rpcCode, message: e.message, ...(data !== undefined ? { data } : {}) }, id: isRpcId(id) ? id : null } };
}

/** JSON-RPC codes of the Sender interface where they differ from the table (compat-facts §4: 429 → -32005). */
const SENDER_RPC_CODES: Partial<Record<SolgateErrorCode, number>> = { RATE_LIMITED: -32005 };

/**
 * The Sender interface (`/fast`): JSON-RPC bodies that keep the HTTP status of the error (a rejected transaction is
 * a 400 with -32602, as the reference answers), so clients that check `res.ok` see the failure.
 */
export function senderErrorBody(
  e: SolgateError,
  id: unknown,
): { status: number; body: { jsonrpc: '2.0'; error: { code: number; message: string; data?: unknown }; id: unknown } } {
  const { status, rpcCode } = ERROR_TABLE[e.code];
  const data = e.context?.data;
  return {
    status,
    body: { jsonrpc: '2.0', error: { code: SENDER_RPC_CODES[e.code] ?? rpcCode, message: e.message, ...(data !== undefined ? { data } : {}) }, id: isRpcId(id) ? id : null },
  };
}
