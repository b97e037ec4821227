/**
 * The connect-time half of the SSRF guard: an undici agent whose `connect.lookup` resolves every address of the host
 * and fails the connection when any is refused, so a DNS answer cannot change between the check and the connect (DNS
 * rebinding). Literal-IP hosts never reach `lookup` (Node skips DNS for them); `checkUrl` (`url-checks.ts`) refuses
 * those before any request.
 */
import type dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, Client, type Dispatcher } from 'undici';
import { compile, describeRange, refusedRangeCompiled, type SsrfPolicy } from './address-policy.js';
import { SsrfError } from './ssrf-errors.js';
import { systemLookupAll, type LookupAll } from './url-checks.js';

/** A `net.connect` lookup that resolves every address and fails when any is refused (used by the agent). */
export function guardedLookup(policy?: SsrfPolicy, lookupAll: LookupAll = systemLookupAll): LookupFunction {
  const p = compile(policy);
  return ((hostname: string, options: dns.LookupOptions, callback: (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void) => {
    lookupAll(hostname).then(
      (addrs) => {
        const wanted = options.family === 4 || options.family === 6 ? addrs.filter((a) => a.family === options.family) : addrs;
        if (!wanted.length) {
          const e: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          e.code = 'ENOTFOUND';
          return callback(e, '');
        }
        // Any refused address refuses the host, even if another one is public: the resolver may hand out either.
        for (const a of addrs) {
          const r = refusedRangeCompiled(a.address, p);
          if (r) return callback(new SsrfError(`refused to connect to ${hostname}: it resolves to ${a.address}, which is ${describeRange(r)}`, hostname, a.address, r), '');
        }
        if (options.all) callback(null, wanted.map((a) => ({ address: a.address, family: a.family })));
        else callback(null, wanted[0].address, wanted[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  }) as LookupFunction;
}

/** An undici agent whose connections only reach addresses the policy allows. */
export interface GuardedAgent {
  readonly dispatcher: Dispatcher;
  readonly policy: SsrfPolicy;
  /**
   * One kept-alive connection to `origin` under the same guard (lookup, connect timeout) on which up to
   * `pipelining` requests may be in flight at once (HTTP/1.1 pipelining; requests go out, and are answered, in the
   * order they were made). For ordered streams to one origin, e.g. a webhook's deliveries.
   */
  connection(origin: string, pipelining: number): GuardedConnection;
  close(): Promise<void>;
}

/** A single guarded connection (`GuardedAgent.connection`): usable wherever a `GuardedAgent` is. */
export interface GuardedConnection extends GuardedAgent {
  /** Closes the connection without waiting for requests in flight. */
  destroy(): Promise<void>;
  /** Destroyed (or closed): no request can be made on it any more. */
  readonly destroyed: boolean;
}

export interface GuardedAgentOptions {
  /** Connections per origin (default 4). */
  connections?: number;
  /** TCP/TLS connect timeout (default 10 s). */
  connectTimeoutMs?: number;
  /** Resolver returning every address of a name (tests); default the system resolver (`dns.lookup`). */
  lookupAll?: LookupAll;
}

/** The agent every guarded request connects through (`connections` per origin, keep-alive 10 s), and single pipelined connections under the same guard. */
export function createGuardedAgent(policy: SsrfPolicy = {}, o: GuardedAgentOptions = {}): GuardedAgent {
  const connect = { lookup: guardedLookup(policy, o.lookupAll), timeout: o.connectTimeoutMs ?? 10_000 };
  const agent = new Agent({ connections: o.connections ?? 4, keepAliveTimeout: 10_000, connect });
  const self: GuardedAgent = {
    dispatcher: agent,
    policy,
    connection(origin, pipelining) {
      const client = new Client(origin, { pipelining: Math.max(1, pipelining), keepAliveTimeout: 10_000, connect });
      const conn: GuardedConnection = {
        dispatcher: client,
        policy,
        connection: self.connection,
        close: () => client.close(),
        destroy: () => client.destroy(),
        get destroyed() {
          return client.destroyed || client.closed;
        },
      };
      return conn;
    },
    close: () => agent.close(),
  };
  return self;
}
