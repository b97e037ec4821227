/** The forwarding of standard JSON-RPC requests to the cluster RPC, as the API sees it (src/sources/upstream-rpc.ts). */

/** One JSON-RPC response object as the node wrote it (result or error), under the client's id. */
export type RpcReply = { jsonrpc: '2.0'; id: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };

export interface UpstreamRpc {
  /** The node's answer to one request; throws SolgateError UNAVAILABLE / UPSTREAM_TIMEOUT when there is none. */
  forward(method: string, params: unknown, id: unknown, idempotent: boolean): Promise<RpcReply>;
  close(): Promise<void>;
}
