/**
 * The WebSocket endpoint (`ws://host/?api-key=…`, the same port, keys, IP allow-lists and plans as the HTTP
 * interfaces): the standard Solana PubSub subscriptions, bridged to the cluster's PubSub endpoint — one upstream
 * connection per client connection, so subscription ids and notifications are the node's, passed through unchanged.
 *
 * - Only the PubSub methods pass (`*Subscribe` / `*Unsubscribe`); anything else is answered here with a JSON-RPC
 *   error and never reaches the node.
 * - Each subscribe is metered like a standard call (1 credit, the `rpc` bucket); a refused one is answered with the
 *   meter's error (-32429 rate limited, max usage reached) and not forwarded.
 * - Limits with clear close codes: connections per key (`1008`, "too many connections for this API key"),
 *   subscriptions per connection (a -32602 error for the subscribe over the limit), a client that does not read its
 *   notifications (more than `maxBufferedBytes` unsent: closed `1008` "slow consumer", so memory never grows without
 *   bound), a client that does not answer pings (terminated), the node's connection lost (`1011` with its reason: the
 *   client reconnects and subscribes again).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import websocket from '@fastify/websocket';
import type { WebSocket } from 'ws';
import { normalizeError } from '../plugins/errors.js';
import { createAuthenticator } from '../plugins/auth.js';
import { rpcErrorBody } from '../wire/errors.js';
import { stringifyRpc } from '../wire/json.js';
import type { ApiDeps, PubsubOptions } from '../deps.js';
import { wsClosed, wsConnections, wsNotifications, wsSubscribes } from '../../core/metrics.js';
import { needsParse, notificationText, orderedParsedSender, parsedFetch, transactionParams } from './transactions.js';
import type { NormalizedTx } from '../../core/model.js';
import { afterFinality, createFinalityGate, type FinalityGate } from './finality.js';
import { accountParams } from './accounts.js';

/** agave's PubSub methods. */
const SUBSCRIBE = new Set(['accountSubscribe', 'blockSubscribe', 'logsSubscribe', 'programSubscribe', 'rootSubscribe', 'signatureSubscribe', 'slotSubscribe', 'slotsUpdatesSubscribe', 'voteSubscribe']);
const UNSUBSCRIBE = new Set([...SUBSCRIBE].map((m) => m.replace('Subscribe', 'Unsubscribe')));

/** Ids of subscriptions served here start far above the small counters a node hands out. */
let nextLocalId = 1_000_000_000;

/** Close codes and reasons the endpoint uses (the reason is at most 123 bytes, as the protocol allows). */
export const WS_CLOSE = {
  tooManyConnections: { code: 1008, reason: 'too many connections for this API key' },
  slowConsumer: { code: 1008, reason: 'slow consumer: notifications were not read' },
  upstream: { code: 1011, reason: 'the cluster WebSocket connection ended' },
} as const;

export async function pubsubApi(app: FastifyInstance, deps: ApiDeps, o: PubsubOptions): Promise<void> {
  // The cluster's finalized slot, read only while a notification waits for it (shared by every connection).
  let gate: FinalityGate | null = null;
  const finality = (): FinalityGate | null => (deps.upstreamRpc ? (gate ??= createFinalityGate(deps.upstreamRpc)) : null);
  await app.register(websocket, { options: { maxPayload: 1024 * 1024 } });
  const authenticate = createAuthenticator(deps.db, 'rpc');
  const perKey = new Map<string, number>();
  const maxPerKey = o.maxConnectionsPerKey ?? 100;
  const maxSubs = o.maxSubscriptions ?? 1000;
  const maxBuffered = o.maxBufferedBytes ?? 8 * 1024 * 1024;

  app.addHook('preValidation', async (req, reply) => {
    // A plain GET / (no upgrade) is no PubSub request: leave it to the 404 handler without asking for a key.
    if (req.headers.upgrade?.toLowerCase() !== 'websocket') return;
    try {
      await authenticate(req);
    } catch (err) {
      const e = normalizeError(err);
      const { status, body } = rpcErrorBody(e, null);
      return reply.status(status).send(body);
    }
  });

  app.get('/', { websocket: true }, (socket: WebSocket, req: FastifyRequest) => {
    const key = req.apiKey!;
    const open = (perKey.get(key.id) ?? 0) + 1;
    if (open > maxPerKey) {
      wsClosed.inc({ reason: 'too_many_connections' });
      socket.close(WS_CLOSE.tooManyConnections.code, WS_CLOSE.tooManyConnections.reason);
      return;
    }
    perKey.set(key.id, open);
    wsConnections.inc();
    const up = o.upstream();
    /** Subscribe request ids waiting for the node's answer, and the subscriptions it granted. */
    const pending = new Map<string, string>();
    const subscriptions = new Set<string>();
    /** Subscriptions served here (transactionSubscribe, accountSubscribe at the index's commitment), by id. */
    const local = new Map<number, { method: string; cancel: () => void }>();
    let ended = false;

    const end = (close?: { code: number; reason: string }, metric?: string) => {
      if (ended) return;
      ended = true;
      clearInterval(ping);
      for (const l of local.values()) l.cancel();
      local.clear();
      wsConnections.dec();
      const n = (perKey.get(key.id) ?? 1) - 1;
      if (n > 0) perKey.set(key.id, n);
      else perKey.delete(key.id);
      up.close();
      if (metric) wsClosed.inc({ reason: metric });
      if (close && socket.readyState === socket.OPEN) socket.close(close.code, close.reason.slice(0, 123));
    };
    const reply = (payload: unknown) => {
      if (socket.readyState === socket.OPEN) socket.send(stringifyRpc(payload));
    };
    const refuse = (id: unknown, code: number, message: string) => reply({ jsonrpc: '2.0', error: { code, message }, id: id ?? null });

    let alive = true;
    const ping = setInterval(() => {
      if (!alive) {
        wsClosed.inc({ reason: 'no_pong' });
        socket.terminate();
        return;
      }
      alive = false;
      socket.ping();
    }, o.pingMs ?? 30_000);
    ping.unref();
    socket.on('pong', () => (alive = true));

    up.onMessage((text) => {
      // The node's answers to subscribe requests tell which subscriptions exist (for the per-connection limit).
      if (pending.size && text.length < 512) {
        try {
          const m = JSON.parse(text) as { id?: unknown; result?: unknown };
          const k = JSON.stringify(m.id ?? null);
          if (pending.has(k)) {
            pending.delete(k);
            if (typeof m.result === 'number') subscriptions.add(String(m.result));
          }
        } catch {
          // not a JSON object: pass it through as is
        }
      }
      if (socket.bufferedAmount > maxBuffered) return end(WS_CLOSE.slowConsumer, 'slow_consumer');
      wsNotifications.inc();
      if (socket.readyState === socket.OPEN) socket.send(text);
    });
    up.onClose((reason) => end({ code: WS_CLOSE.upstream.code, reason: `${WS_CLOSE.upstream.reason}: ${reason}` }, 'upstream'));
    up.ready.catch(() => {});

    socket.on('message', async (data, isBinary) => {
      if (isBinary) return refuse(null, -32600, 'Invalid request: binary frames are not JSON-RPC');
      let msg: { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
      try {
        msg = JSON.parse(data.toString());
      } catch {
        return refuse(null, -32700, 'Parse error');
      }
      if (!msg || typeof msg !== 'object' || Array.isArray(msg) || msg.jsonrpc !== '2.0' || typeof msg.method !== 'string')
        return refuse((msg as { id?: unknown } | null)?.id, -32600, 'Invalid request');
      const method = msg.method;
      // Keep-alives: web3.js sends `{"method":"ping"}` without an id every 5 s (a notification: no answer, as agave);
      // some clients send it with an id and ignore the answer.
      if (method === 'ping') return msg.id === undefined ? undefined : reply({ jsonrpc: '2.0', result: 'pong', id: msg.id });
      if (msg.id === undefined) return;
      if (method === 'transactionSubscribe') return localTransactions(msg);
      if (method === 'transactionUnsubscribe' || (method === 'accountUnsubscribe' && local.has(Number((msg.params as unknown[] | undefined)?.[0])))) return localUnsubscribe(msg);
      // accountSubscribe at the index's commitment is served from the committed blocks (src/api/ws/accounts.ts).
      if (method === 'accountSubscribe' && o.accounts) {
        const accounts = o.accounts;
        let parsed: ReturnType<typeof accountParams>;
        try {
          parsed = accountParams(msg.params, accounts.commitment);
        } catch (e) {
          return refuse(msg.id, -32602, (e as Error).message);
        }
        if (parsed) {
          const p = parsed;
          return localSubscribe(msg.id, 'accountSubscribe', (_subId, send) => ({ cancel: accounts.subscribe(p.pubkey, p.options, (r) => send('accountNotification', stringifyRpc(r))) }));
        }
      }
      if (UNSUBSCRIBE.has(method)) {
        const sub = Array.isArray(msg.params) ? String(msg.params[0]) : '';
        subscriptions.delete(sub);
      } else if (SUBSCRIBE.has(method)) {
        if (subscriptions.size + pending.size >= maxSubs) {
          wsSubscribes.inc({ method, outcome: 'refused' });
          return refuse(msg.id, -32602, `Too many subscriptions: at most ${maxSubs} per connection`);
        }
        if (deps.meter) {
          try {
            await deps.meter.charge(req, null, { bucket: 'rpc', cost: 'rpc', method });
          } catch (err) {
            wsSubscribes.inc({ method, outcome: 'refused' });
            const { body } = rpcErrorBody(normalizeError(err), (msg.id ?? null) as string | number | null);
            return reply(body);
          }
        }
        wsSubscribes.inc({ method, outcome: 'ok' });
        pending.set(JSON.stringify(msg.id ?? null), method);
      } else return refuse(msg.id, -32601, 'Method not found');
      try {
        await up.ready;
      } catch (e) {
        return end({ code: WS_CLOSE.upstream.code, reason: `the cluster WebSocket cannot be reached: ${(e as Error).message}` }, 'upstream_unreachable');
      }
      up.send(data.toString());
    });
    /** Subscriptions served here (ids from a range the node's never reach): subscribe checks, limit, meter, answer. */
    async function localSubscribe(
      id: unknown, method: string, start: (subId: number, send: (method: string, resultJson: string) => void) => { cancel(): void; ready?: Promise<void> },
    ): Promise<void> {
      if (subscriptions.size + pending.size + local.size >= maxSubs) {
        wsSubscribes.inc({ method, outcome: 'refused' });
        return refuse(id, -32602, `Too many subscriptions: at most ${maxSubs} per connection`);
      }
      if (deps.meter) {
        try {
          await deps.meter.charge(req, null, { bucket: 'rpc', cost: 'rpc', method });
        } catch (err) {
          wsSubscribes.inc({ method, outcome: 'refused' });
          return reply(rpcErrorBody(normalizeError(err), (id ?? null) as string | number | null).body);
        }
      }
      if (ended) return;
      wsSubscribes.inc({ method, outcome: 'ok' });
      const subId = nextLocalId++;
      const sub = start(subId, (notification, resultJson) => {
        if (ended) return;
        if (socket.bufferedAmount > maxBuffered) return end(WS_CLOSE.slowConsumer, 'slow_consumer');
        wsNotifications.inc();
        // The result's JSON text is shared by every subscription it goes to (notificationText); only the id differs.
        if (socket.readyState === socket.OPEN) socket.send(`{"jsonrpc":"2.0","method":"${notification}","params":{"result":${resultJson},"subscription":${subId}}}`);
      });
      local.set(subId, { method, cancel: sub.cancel });
      reply({ jsonrpc: '2.0', result: subId, id });
      // Resuming: the past comes first; if it cannot be read the subscription ends with an error naming it.
      sub.ready?.catch((e: Error) => {
        local.delete(subId);
        reply({ jsonrpc: '2.0', method: method.replace('Subscribe', 'Notification'), params: { subscription: subId, error: { code: -32602, message: e.message } } });
      });
    }

    /** `*Unsubscribe` of a subscription served here: true, or -32602 for an id this connection does not hold. */
    function localUnsubscribe(msg: { id?: unknown; method?: unknown; params?: unknown }): void {
      const sub = Array.isArray(msg.params) ? Number(msg.params[0]) : NaN;
      const held = local.get(sub);
      if (!held || held.method.replace('Subscribe', 'Unsubscribe') !== msg.method) return refuse(msg.id, -32602, 'Invalid subscription id');
      held.cancel();
      local.delete(sub);
      reply({ jsonrpc: '2.0', result: true, id: msg.id });
    }

    /** transactionSubscribe, answered here from the stream of committed blocks. */
    async function localTransactions(msg: { id?: unknown; method?: unknown; params?: unknown }): Promise<void> {
      const transactions = o.transactions;
      if (!transactions) return refuse(msg.id, -32601, 'Method not found: transactionSubscribe is served by a solgate process that reads the index and the cluster');
      let parsed: ReturnType<typeof transactionParams>;
      try {
        parsed = transactionParams(msg.params);
      } catch (e) {
        return refuse(msg.id, -32602, (e as Error).message);
      }
      const options = parsed.options;
      // jsonParsed with full details is the cluster's own parse of each transaction (every program agave knows).
      if (needsParse(options) && !deps.upstreamRpc) return refuse(msg.id, -32602, 'Invalid params: encoding jsonParsed needs a cluster RPC (SOLGATE_RPC_UPSTREAM_URL)');
      const fetch = needsParse(options) ? parsedFetch(deps.upstreamRpc!, deps.indexCommitment ?? 'confirmed') : null;
      // A commitment stronger than the index's (finalized over confirmed) waits for the cluster to finalize each slot.
      const gate = parsed.commitment === 'finalized' && deps.indexCommitment !== 'finalized' ? finality() : null;
      if (parsed.commitment === 'finalized' && deps.indexCommitment !== 'finalized' && !gate)
        return refuse(msg.id, -32602, 'Invalid params: commitment finalized needs a cluster RPC (SOLGATE_RPC_UPSTREAM_URL)');
      return localSubscribe(msg.id, 'transactionSubscribe', (subId, send) => {
        const fail = (e: Error) => {
          local.get(subId)?.cancel();
          local.delete(subId);
          reply({ jsonrpc: '2.0', method: 'transactionNotification', params: { subscription: subId, error: { code: -32603, message: e.message } } });
        };
        const deliver = fetch
          ? orderedParsedSender(options, fetch, (text) => send('transactionNotification', text), fail)
          : (tx: NormalizedTx) => send('transactionNotification', notificationText(tx, options));
        return transactions.subscribe(parsed.filter, gate ? afterFinality(gate, deliver, fail) : deliver, parsed.fromSlot, parsed.fromIndex);
      });
    }

    socket.on('close', () => end());
    socket.on('error', () => end());
  });
}
