/** The forwarding of standard JSON-RPC requests to the cluster RPC, as the API sees it (src/sources/upstream-rpc.ts). */

/** One JSON-RPC response object as the node wrote it (result or error), under the client's id. */
export type RpcReply = { jsonrpc: '2.0'; id: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };

export interface UpstreamRpc {
  /** The node's answer to one request; throws SolgateError UNAVAILABLE / UPSTREAM_TIMEOUT when there is none. */
  forward(method: string, params: unknown, id: unknown, idempotent: boolean): Promise<RpcReply>;
  /**
   * Several requests in one JSON-RPC batch to the node (one round trip); the answers in the order of `calls`, each
   * under its own id. A node that refuses batches gets the calls one by one.
   */
  forwardBatch(calls: readonly { method: string; params: unknown; id: unknown; idempotent: boolean }[]): Promise<RpcReply[]>;
  close(): Promise<void>;
}

/** One WebSocket connection to the cluster's PubSub endpoint (src/sources/upstream-ws.ts). */
export interface UpstreamSocket {
  /** Resolves once connected; rejects with the cause when the endpoint cannot be reached. */
  readonly ready: Promise<void>;
  send(text: string): void;
  /** Every text frame the node sends, as is. */
  onMessage(cb: (text: string) => void): void;
  /** Called once when the connection ends (closed by either side or failed), with a reason. */
  onClose(cb: (reason: string) => void): void;
  close(): void;
}

export type UpstreamSocketFactory = () => UpstreamSocket;

export type AccountEncoding = 'base58' | 'base64' | 'base64+zstd' | 'jsonParsed';

export interface AccountOptions {
  encoding: AccountEncoding;
  dataSlice?: { offset: number; length: number };
}

/** Reads accounts from the cluster: the values in the order of `keys` (null where none), and the answer's slot. */
export type AccountFetch = (keys: string[], o: AccountOptions & { minContextSlot: number }) => Promise<{ slot: number; values: (Record<string, unknown> | null)[] }>;
