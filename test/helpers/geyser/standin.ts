/**
 * A local stand-in for a Yellowstone gRPC server: the published geyser service (`geyser.Geyser/Subscribe`, messages
 * encoded with the Yellowstone client package's own protobuf codecs) on @grpc/grpc-js, fed by a cluster's JSON-RPC
 * (the localnet): every confirmed block is read with `getBlock` and streamed as the plugin's block update.
 *
 * As a real server: `from_slot` replays from that slot when it is within `retention` slots of the head, else the
 * subscription fails (OUT_OF_RANGE); without it the stream starts after the head; a client whose stream stays
 * blocked (HTTP/2 flow control) for `lagMs` is disconnected (RESOURCE_EXHAUSTED, "lagged"); pings are answered with
 * pongs. Faults for tests: slots never sent (`dropSlots`), a disconnect after N more blocks (`disconnectAfter`).
 */
import * as grpc from '@grpc/grpc-js';
import { SubscribeRequest, SubscribeUpdate } from '@triton-one/yellowstone-grpc';
import { geyserBlock } from './block.js';

export interface StandinOptions {
  /** The JSON-RPC the blocks are read from. */
  rpcUrl: string;
  /** How far back from the head `from_slot` may reach (default 10 000 slots). */
  retention?: number;
  /** How often the head is polled (default 20 ms). */
  pollMs?: number;
  /** How long a blocked stream may stay blocked before the client is disconnected (default 1 000 ms). */
  lagMs?: number;
}

export interface StandinStats {
  subscriptions: number;
  blocksSent: number;
  lagDisconnects: number;
  refusedFromSlot: number;
  injectedDisconnects: number;
  pongs: number;
  /** `from_slot` of each subscription (null = from the head). */
  fromSlots: (number | null)[];
}

export interface Standin {
  readonly url: string;
  readonly stats: StandinStats;
  /** Slots whose blocks are never streamed (the client must find them itself). */
  readonly dropSlots: Set<number>;
  /** Ends every open stream (else the next one) with UNAVAILABLE once `n` more blocks have been sent on it. */
  disconnectAfter(n: number): void;
  close(): Promise<void>;
}

const service: grpc.ServiceDefinition = {
  subscribe: {
    path: '/geyser.Geyser/Subscribe',
    requestStream: true,
    responseStream: true,
    requestSerialize: (m: SubscribeRequest) => Buffer.from(SubscribeRequest.encode(m).finish()),
    requestDeserialize: (b: Buffer) => SubscribeRequest.decode(b),
    responseSerialize: (m: SubscribeUpdate) => Buffer.from(SubscribeUpdate.encode(m).finish()),
    responseDeserialize: (b: Buffer) => SubscribeUpdate.decode(b),
    originalName: 'subscribe',
  },
};

export async function startStandin(opts: StandinOptions): Promise<Standin> {
  const retention = opts.retention ?? 10_000;
  const pollMs = opts.pollMs ?? 20;
  const lagMs = opts.lagMs ?? 1_000;
  const stats: StandinStats = { subscriptions: 0, blocksSent: 0, lagDisconnects: 0, refusedFromSlot: 0, injectedDisconnects: 0, pongs: 0, fromSlots: [] };
  const dropSlots = new Set<number>();
  const countdowns = new Set<{ left: number }>();
  let pendingDisconnect: number | null = null;
  let closed = false;
  let id = 0;
  const rpc = async (method: string, params: unknown[]): Promise<any> => { // eslint-disable-line @typescript-eslint/no-explicit-any
    const res = await fetch(opts.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) });
    const body = (await res.json()) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const fail = (call: grpc.ServerDuplexStream<SubscribeRequest, SubscribeUpdate>, code: grpc.status, details: string): void => {
    call.emit('error', Object.assign(new Error(details), { code, details }));
  };

  async function feed(call: grpc.ServerDuplexStream<SubscribeRequest, SubscribeUpdate>, req: SubscribeRequest, ended: () => boolean): Promise<void> {
    const filter = Object.keys(req.blocks)[0];
    const head: number = await rpc('getSlot', [{ commitment: 'confirmed' }]);
    let next: number;
    if (req.fromSlot !== undefined) {
      const from = Number(req.fromSlot);
      stats.fromSlots.push(from);
      if (from < head - retention) {
        stats.refusedFromSlot++;
        return fail(call, grpc.status.OUT_OF_RANGE, `broadcast from ${from} is not available, last available: ${head - retention}`);
      }
      next = from;
    } else {
      stats.fromSlots.push(null);
      next = head + 1;
    }
    const countdown = { left: pendingDisconnect ?? Infinity };
    pendingDisconnect = null;
    countdowns.add(countdown);
    try {
      while (!ended() && !closed) {
        const tip: number = await rpc('getSlot', [{ commitment: 'confirmed' }]);
        if (tip < next) {
          await sleep(pollMs);
          continue;
        }
        const slots: number[] = await rpc('getBlocks', [next, tip, { commitment: 'confirmed' }]);
        for (const slot of slots) {
          if (ended() || closed) return;
          if (dropSlots.has(slot)) continue;
          const block = await rpc('getBlock', [slot, { encoding: 'base64', transactionDetails: 'full', rewards: false, maxSupportedTransactionVersion: 0, commitment: 'confirmed' }]);
          if (!block) continue;
          if (countdown.left <= 0) {
            stats.injectedDisconnects++;
            return fail(call, grpc.status.UNAVAILABLE, 'stand-in: injected disconnect');
          }
          const ok = call.write({ filters: [filter], block: geyserBlock(block, slot), createdAt: new Date() });
          stats.blocksSent++;
          countdown.left--;
          if (!ok) {
            const drained = await Promise.race([new Promise<boolean>((r) => call.once('drain', () => r(true))), sleep(lagMs).then(() => false)]);
            if (!drained && !ended()) {
              stats.lagDisconnects++;
              return fail(call, grpc.status.RESOURCE_EXHAUSTED, 'lagged: the client reads too slowly');
            }
          }
        }
        next = tip + 1;
      }
    } finally {
      countdowns.delete(countdown);
    }
  }

  const server = new grpc.Server();
  server.addService(service, {
    subscribe(call: grpc.ServerDuplexStream<SubscribeRequest, SubscribeUpdate>) {
      stats.subscriptions++;
      let ended = false;
      let started = false;
      const end = () => void (ended = true);
      call.on('cancelled', end);
      call.on('close', end);
      call.on('error', end);
      call.on('end', () => {
        end();
        call.end();
      });
      call.on('data', (req: SubscribeRequest) => {
        if (req.ping) {
          stats.pongs++;
          call.write({ filters: [], pong: { id: req.ping.id }, createdAt: new Date() });
          return;
        }
        if (started || Object.keys(req.blocks).length === 0) return;
        started = true;
        feed(call, req, () => ended).catch((e) => {
          if (!ended) fail(call, grpc.status.INTERNAL, String((e as Error).message));
        });
      });
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    dropSlots,
    disconnectAfter(n) {
      if (countdowns.size === 0) pendingDisconnect = n;
      for (const c of countdowns) c.left = n;
    },
    async close() {
      closed = true;
      server.forceShutdown();
    },
  };
}
