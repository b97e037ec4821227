/**
 * The WebSocket benchmark's subscribers (child process forked by bench/ws.ts, so they do not share the server's event
 * loop): N `ws` connections, each subscribing once with `transactionSubscribe` (its group's filter), recording every
 * notification's arrival time (the system-wide monotonic clock, comparable with the parent's) and its slot. Messages
 * are not parsed: the slot, signature and subscription id are read from the bytes (their last occurrences: they come
 * after the transaction and its meta), and each client keeps the signatures it got (a duplicate or a signature
 * outside its group's is counted as wrong). The first notification of a phase is sent back as a sample (the parent
 * checks that the ceiling sends the same bytes). Driven over IPC:
 *
 *   parent → {type: 'config', …}            connect every client and subscribe → {type: 'ready', connectMs}
 *   parent → {type: 'phase', perSlot}       reset the records → {type: 'armed'}; then {type: 'slot', slot} once a
 *                                           slot's notifications (perSlot[slot] in all) have all arrived, and
 *                                           {type: 'phase-done', …} with the records when every slot has (or when
 *                                           `timeoutMs` passed without a notification)
 *   parent → {type: 'extras'}               → {type: 'extras', count}: notifications that came after their phase ended
 *                                           (more than expected) or outside any phase
 *   parent → {type: 'close'}                close every connection and exit
 */
import WebSocket from 'ws';

export interface ClientsConfig {
  type: 'config';
  /** One URL per client (the API key and the group in its query). */
  urls: string[];
  /** The group of each client. */
  groupOf: number[];
  /** Per group: the transactionSubscribe params and the signatures it must receive. */
  groups: { params: unknown[]; signatures: string[] }[];
  /** Connections opened at once. */
  connectBatch: number;
  /** A phase ends when no notification came for this long. */
  idleTimeoutMs: number;
}

export interface PhaseMessage {
  type: 'phase';
  /** Expected notifications per slot, over all clients. */
  perSlot: Record<number, number>;
}

export interface PhaseDone {
  type: 'phase-done';
  received: number;
  arrivals: Float64Array;
  slots: Float64Array;
  bytes: number;
  /** Duplicates, signatures outside the client's group, wrong subscription ids. */
  wrong: number;
  /** Clients that received fewer notifications than their group's signatures. */
  shortClients: number;
  timedOut: boolean;
  firstWrong: string | null;
  /** The phase's first notification, as received. */
  sample: string | null;
}

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
const SUB_KEY = '"subscription":';
const SIG_KEY = '"signature":"';
const SLOT_KEY = '"slot":';

interface Client {
  ws: WebSocket;
  group: number;
  subId: number;
  got: Set<string>;
}

let clients: Client[] = [];
let groupSigs: Set<string>[] = [];
let config: ClientsConfig;

// Records of the current phase.
let arrivals = new Float64Array(1 << 16);
let slots = new Float64Array(1 << 16);
let received = 0;
let bytes = 0;
let wrong = 0;
let firstWrong: string | null = null;
let sample: string | null = null;
let perSlot = new Map<number, number>();
let expectedTotal = 0;
let armed = false;
let idleTimer: NodeJS.Timeout | null = null;
/** Notifications outside a phase, over the process's life. */
let extras = 0;

function send(m: unknown): void {
  process.send!(m);
}

function noteWrong(what: string): void {
  wrong++;
  firstWrong ??= what;
}

function record(c: Client, data: Buffer): void {
  const t = nowMs();
  if (!armed) {
    extras++;
    return;
  }
  sample ??= data.toString();
  const sub = readInt(data, data.lastIndexOf(SUB_KEY) + SUB_KEY.length);
  if (sub !== c.subId) noteWrong(`subscription ${sub}, expected ${c.subId}`);
  const si = data.lastIndexOf(SIG_KEY);
  const sig = si >= 0 ? data.toString('latin1', si + SIG_KEY.length, data.indexOf(0x22, si + SIG_KEY.length)) : '';
  if (!groupSigs[c.group].has(sig)) noteWrong(`signature ${sig} is not in the client's group`);
  else if (c.got.has(sig)) noteWrong(`signature ${sig} twice`);
  c.got.add(sig);
  const slot = readInt(data, data.lastIndexOf(SLOT_KEY) + SLOT_KEY.length);
  if (received === arrivals.length) {
    const a = new Float64Array(arrivals.length * 2);
    a.set(arrivals);
    arrivals = a;
    const s = new Float64Array(slots.length * 2);
    s.set(slots);
    slots = s;
  }
  arrivals[received] = t;
  slots[received] = slot;
  received++;
  bytes += data.length;
  const left = (perSlot.get(slot) ?? 0) - 1;
  perSlot.set(slot, left);
  if (left === 0) send({ type: 'slot', slot });
  if (received >= expectedTotal) finish(false);
  else armIdle();
}

/** The decimal integer at `at` (-1 when there is none). */
function readInt(data: Buffer, at: number): number {
  let n = -1;
  for (let i = at; i < data.length; i++) {
    const d = data[i] - 48;
    if (d < 0 || d > 9) break;
    n = (n < 0 ? 0 : n * 10) + d;
  }
  return n;
}

function armIdle(): void {
  idleTimer?.refresh();
}

function finish(timedOut: boolean): void {
  if (!armed) return;
  armed = false;
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  let shortClients = 0;
  for (const c of clients) if (c.got.size < config.groups[c.group].signatures.length) shortClients++;
  const done: PhaseDone = {
    type: 'phase-done', received, arrivals: arrivals.slice(0, received), slots: slots.slice(0, received), bytes, wrong, shortClients, timedOut, firstWrong, sample,
  };
  send(done);
}

async function connectAll(): Promise<void> {
  const open = (i: number) =>
    new Promise<Client>((resolve, reject) => {
      const ws = new WebSocket(config.urls[i], { perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
      const c: Client = { ws, group: config.groupOf[i], subId: -1, got: new Set() };
      ws.once('error', (e) => reject(new Error(`client ${i}: ${e.message}`)));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`client ${i}: HTTP ${res.statusCode} at the upgrade`)));
      ws.once('close', (code, reason) => {
        if (c.subId < 0) reject(new Error(`client ${i}: closed ${code} ${reason.toString()} before subscribing`));
      });
      ws.once('open', () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'transactionSubscribe', params: config.groups[c.group].params })));
      ws.on('message', (data: Buffer, isBinary: boolean) => {
        if (c.subId >= 0 && !isBinary && data.length > 200) return record(c, data);
        const m = JSON.parse(data.toString()) as { id?: number; result?: unknown; error?: { message: string } };
        if (m.id === 1 && typeof m.result === 'number') {
          c.subId = m.result;
          resolve(c);
        } else if (m.id === 1) reject(new Error(`client ${i}: transactionSubscribe answered ${data.toString().slice(0, 300)}`));
        else noteWrong(`unexpected message ${data.toString().slice(0, 200)}`);
      });
    });
  const out: Client[] = [];
  for (let i = 0; i < config.urls.length; i += config.connectBatch) {
    const batch = [];
    for (let j = i; j < Math.min(config.urls.length, i + config.connectBatch); j++) batch.push(open(j));
    out.push(...(await Promise.all(batch)));
  }
  clients = out;
}

process.on('message', (m: ClientsConfig | PhaseMessage | { type: 'extras' | 'close' }) => {
  if (m.type === 'config') {
    config = m;
    groupSigs = m.groups.map((g) => new Set(g.signatures));
    const t0 = nowMs();
    connectAll().then(
      () => send({ type: 'ready', connectMs: nowMs() - t0 }),
      (e: Error) => send({ type: 'error', message: e.message }),
    );
  } else if (m.type === 'phase') {
    received = 0;
    bytes = 0;
    wrong = 0;
    firstWrong = null;
    sample = null;
    perSlot = new Map(Object.entries(m.perSlot).map(([k, v]) => [Number(k), v]));
    expectedTotal = [...perSlot.values()].reduce((a, b) => a + b, 0);
    for (const c of clients) c.got.clear();
    armed = true;
    idleTimer = setTimeout(() => finish(true), config.idleTimeoutMs);
    send({ type: 'armed' });
  } else if (m.type === 'extras') {
    send({ type: 'extras', count: extras });
  } else if (m.type === 'close') {
    for (const c of clients) c.ws.terminate();
    process.exit(0);
  }
});
process.on('disconnect', () => process.exit(0));
