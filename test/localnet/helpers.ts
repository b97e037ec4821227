/**
 * Shared helpers for localnet tests: a JSON-RPC client over fetch and kit transaction building, sending to a
 * manual-slot localnet one transaction per slot, and ingesting it through the RPC poller.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import * as zlib from 'node:zlib';
import pino from 'pino';
import WebSocket from 'ws';
import {
  appendTransactionMessageInstructions, compressTransactionMessageUsingAddressLookupTables, createTransactionMessage,
  generateKeyPairSigner, getBase64EncodedWireTransaction, getSignatureFromTransaction, pipe,
  setTransactionMessageFeePayerSigner, setTransactionMessageLifetimeUsingBlockhash, signTransactionMessageWithSigners,
  type Address, type Blockhash, type Instruction, type KeyPairSigner,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import * as spl from '@solana-program/token';
import { parseJsonLossless } from '../../src/sources/json.js';
import { buildWireTransaction } from '../../src/sources/localnet/demo.js';
import { createRpcPoller } from '../../src/sources/rpc-poller.js';
import { createIngester } from '../../src/ingest/pipeline.js';
import { getCheckpoint } from '../../src/store/chain.js';
import type { Db } from '../../src/store/db.js';
import { LIGHT_TREE_TYPE, treeLookupFrom } from '../../src/parsers/light/index.js';
import { LIGHT_STATE_TREES_V1, LIGHT_STATE_TREES_V2 } from '../../src/sources/localnet/light.js';
import { createLocalnet, type LocalChainOptions, type Localnet } from '../../src/sources/localnet/index.js';

export interface RpcReply {
  result?: any;
  error?: { code: number; message: string; data?: any };
  id: unknown;
}

export function rpcClient(url: string) {
  let id = 0;
  const raw = async (body: unknown): Promise<any> => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
    return parseJsonLossless(await res.text());
  };
  /** Returns the whole reply (result or error). */
  const reply = (method: string, params: unknown[] = []): Promise<RpcReply> => raw({ jsonrpc: '2.0', id: ++id, method, params });
  /** Returns `result`, throwing on an error reply. */
  const call = async (method: string, params: unknown[] = []): Promise<any> => {
    const r = await reply(method, params);
    if (r.error) throw new Error(`${method}: ${r.error.code} ${r.error.message}`);
    return r.result;
  };
  return { raw, reply, call };
}
export type RpcClient = ReturnType<typeof rpcClient>;

/** Signs a transaction; returns its base64 wire form and signature. */
export async function signTx(
  payer: KeyPairSigner,
  instructions: Instruction[],
  blockhash: string,
  opts: { version?: 'legacy' | 0; lookupTables?: Record<Address, Address[]> } = {},
): Promise<{ base64: string; signature: string }> {
  const lifetime = { blockhash: blockhash as Blockhash, lastValidBlockHeight: 1_000_000n };
  let signed;
  if (opts.version === 0) {
    const base = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    signed = await signTransactionMessageWithSigners(opts.lookupTables ? compressTransactionMessageUsingAddressLookupTables(base, opts.lookupTables) : base);
  } else {
    const msg = pipe(
      createTransactionMessage({ version: 'legacy' }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    signed = await signTransactionMessageWithSigners(msg);
  }
  return { base64: getBase64EncodedWireTransaction(signed), signature: getSignatureFromTransaction(signed) };
}

/** Signs with the latest blockhash and sends through HTTP `sendTransaction` (base64). */
export async function sendTx(
  rpc: RpcClient,
  payer: KeyPairSigner,
  instructions: Instruction[],
  opts: { skipPreflight?: boolean; version?: 'legacy' | 0; lookupTables?: Record<Address, Address[]> } = {},
): Promise<{ signature: string; base64: string; reply: RpcReply }> {
  const { value } = await rpc.call('getLatestBlockhash');
  const tx = await signTx(payer, instructions, value.blockhash, opts);
  const reply = await rpc.reply('sendTransaction', [tx.base64, { encoding: 'base64', skipPreflight: opts.skipPreflight ?? false }]);
  return { ...tx, reply };
}

/** Creates an SPL Token mint with `decimals`, ATAs for `owners` and mints `amount` to the first owner. */
export async function setupSplMint(
  rpc: RpcClient,
  payer: KeyPairSigner,
  decimals: number,
  owners: Address[],
  amount: bigint,
): Promise<{ mint: Address; atas: Address[] }> {
  const mint = await generateKeyPairSigner();
  const rent = BigInt(await rpc.call('getMinimumBalanceForRentExemption', [82]));
  const atas: Address[] = [];
  for (const owner of owners) atas.push((await spl.findAssociatedTokenPda({ owner, mint: mint.address, tokenProgram: spl.TOKEN_PROGRAM_ADDRESS }))[0]);
  const r = await sendTx(rpc, payer, [
    getCreateAccountInstruction({ payer, newAccount: mint, lamports: rent, space: 82, programAddress: spl.TOKEN_PROGRAM_ADDRESS }),
    spl.getInitializeMint2Instruction({ mint: mint.address, decimals, mintAuthority: payer.address }),
    ...owners.map((owner, i) => spl.getCreateAssociatedTokenIdempotentInstruction({ payer, ata: atas[i], owner, mint: mint.address })),
    spl.getMintToInstruction({ mint: mint.address, token: atas[0], mintAuthority: payer, amount }),
  ]);
  if (r.reply.error) throw new Error(JSON.stringify(r.reply.error));
  return { mint: mint.address, atas };
}

/** Finds a transaction in a `getBlock` (json) result by signature. */
export function findTx(block: any, signature: string): any {
  const tx = block.transactions.find((t: any) => (Array.isArray(t.transaction) ? false : t.transaction.signatures[0] === signature));
  if (!tx) throw new Error(`tx ${signature} not in block`);
  return tx;
}

/** Plain number of a JSON integer that may have come back as a digit string (parseJsonLossless). */
export const num = (v: unknown): bigint => BigInt(v as string | number);

/** A manual-slot localnet with its RPC client and one payer funded with `lamports` (airdrop in its own slot). */
export async function fundedLocalnet(lamports: number, opts: LocalChainOptions = {}): Promise<{ net: Localnet; rpc: RpcClient; payer: KeyPairSigner }> {
  const net = await createLocalnet({ slotMs: 0, ...opts });
  const rpc = rpcClient(net.url);
  const payer = await generateKeyPairSigner();
  await rpc.call('requestAirdrop', [payer.address, lamports]);
  net.chain.produceSlot();
  return { net, rpc, payer };
}

/** The parser's tree lookup over the localnet's Light genesis state trees (V1 and V2). */
export const genesisStateTrees = treeLookupFrom([
  ...LIGHT_STATE_TREES_V1.map((t) => ({ tree: t.tree, queue: t.queue, treeType: LIGHT_TREE_TYPE.StateV1 })),
  ...LIGHT_STATE_TREES_V2.map((t) => ({ tree: t.tree, queue: t.queue, treeType: LIGHT_TREE_TYPE.StateV2 })),
]);

/** A JSON-RPC call over fetch with plain `JSON.parse`: returns `result`, throws `method: message` on an error reply. */
export type JsonRpc = <T>(method: string, params: unknown[]) => Promise<T>;

export function jsonRpc(url: string): JsonRpc {
  return async <T>(method: string, params: unknown[]): Promise<T> => {
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    const body = (await r.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
}

/** A transaction or airdrop that landed, with the slot produced for it. */
export interface Landed {
  signature: string;
  slot: number;
}

/**
 * Sends to a manual-slot localnet over its JSON-RPC, each transaction (and airdrop) in a slot of its own:
 * `send` signs with the latest blockhash, sends base64 with skipPreflight (a failing transaction lands, fee
 * charged) and produces the slot. The slot reported is the transaction's own: with the slot timer running, the timer
 * may have produced it first.
 */
export function localnetSender(net: Localnet) {
  const rpc = jsonRpc(net.url);
  const landed = (signature: string): Landed => {
    const produced = net.chain.produceSlot();
    return { signature, slot: net.chain.getTransaction(signature)?.slot ?? produced!.slot };
  };
  return {
    rpc,
    async airdrop(to: Address, lamports: bigint): Promise<Landed> {
      const signature = await rpc<string>('requestAirdrop', [to, Number(lamports)]);
      return landed(signature);
    },
    async send(payer: KeyPairSigner, instructions: Instruction[]): Promise<Landed> {
      const { value } = await rpc<{ value: { blockhash: string; lastValidBlockHeight: number } }>('getLatestBlockhash', []);
      const wire = await buildWireTransaction({ feePayer: payer, instructions, blockhash: value.blockhash, lastValidBlockHeight: value.lastValidBlockHeight });
      const signature = await rpc<string>('sendTransaction', [Buffer.from(wire).toString('base64'), { encoding: 'base64', skipPreflight: true }]);
      return landed(signature);
    },
    /**
     * The instructions that create SPL Token mint `mint` (rent-exempt, `decimals`, `payer` the mint authority) and
     * the owners' associated token accounts; with `mintAmount`, also mint that much to the first owner's.
     */
    async mintSetup(payer: KeyPairSigner, mint: KeyPairSigner, decimals: number, owners: Address[], mintAmount?: bigint): Promise<{ instructions: Instruction[]; atas: Address[] }> {
      const rent = BigInt(await rpc<number>('getMinimumBalanceForRentExemption', [82]));
      const atas: Address[] = [];
      for (const owner of owners) atas.push((await spl.findAssociatedTokenPda({ owner, mint: mint.address, tokenProgram: spl.TOKEN_PROGRAM_ADDRESS }))[0]);
      const instructions: Instruction[] = [
        getCreateAccountInstruction({ payer, newAccount: mint, lamports: rent, space: 82, programAddress: spl.TOKEN_PROGRAM_ADDRESS }),
        spl.getInitializeMint2Instruction({ mint: mint.address, decimals, mintAuthority: payer.address }),
      ];
      for (const owner of owners) instructions.push(await spl.getCreateAssociatedTokenIdempotentInstructionAsync({ payer, owner, mint: mint.address }));
      if (mintAmount !== undefined) instructions.push(spl.getMintToCheckedInstruction({ mint: mint.address, token: atas[0], mintAuthority: payer, amount: mintAmount, decimals }));
      return { instructions, atas };
    },
  };
}
export type LocalnetSender = ReturnType<typeof localnetSender>;

/**
 * Ingests the chain at `url` into `db` through the RPC poller, exactly as from a real cluster, until the checkpoint
 * reaches `last` (with `fromSlot`, a re-ingestion from that slot: until the ingester itself has passed `last` too);
 * then stops the ingester and the poller.
 */
export async function ingestUntil(db: Db, url: string, last: number, opts: { fromSlot?: number } = {}): Promise<void> {
  const { fromSlot } = opts;
  const poller = createRpcPoller({ url, pollIntervalMs: 20, concurrency: 4 });
  const ingester = createIngester(db, pino({ level: 'silent' }));
  const ctl = new AbortController();
  const run = ingester.run(poller, { startSlot: 0, fromSlot, signal: ctl.signal });
  const deadline = Date.now() + 60_000;
  while (((await getCheckpoint(db)) ?? -1) < last || (fromSlot !== undefined && (ingester.stats.lastSlot ?? -1) < last)) {
    if (Date.now() > deadline) throw new Error('ingestion did not reach the last slot');
    await new Promise((r) => setTimeout(r, 50));
  }
  ctl.abort();
  await run;
  await poller.close();
}

/**
 * The bytes of a zstd frame: Node's zlib when it has zstd (22.15+), else the `zstd` command line tool, else a reader
 * of frames made of raw and RLE blocks only (RFC 8878 §3.1.1), which is what a zlib without zstd gets from the server.
 */
export function unzstd(frame: Buffer): Buffer {
  const native = (zlib as unknown as { zstdDecompressSync?: (b: Buffer) => Buffer }).zstdDecompressSync;
  if (native) return native(frame);
  try {
    return execFileSync('zstd', ['-d', '-c', '-q'], { input: frame, stdio: ['pipe', 'pipe', 'ignore'] });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (frame.readUInt32LE(0) !== 0xfd2fb528) throw new Error('not a zstd frame');
  const fhd = frame[4];
  const single = (fhd >> 5) & 1;
  const fcsBytes = [single, 2, 4, 8][fhd >> 6];
  let o = 5 + (single ? 0 : 1) + [0, 1, 2, 4][fhd & 3] + fcsBytes;
  const out: Buffer[] = [];
  for (;;) {
    const h = frame[o] | (frame[o + 1] << 8) | (frame[o + 2] << 16);
    o += 3;
    const size = h >> 3;
    const type = (h >> 1) & 3;
    if (type === 0) out.push(frame.subarray(o, (o += size)));
    else if (type === 1) out.push(Buffer.alloc(size, frame[o++]));
    else throw new Error('compressed zstd block: no decoder here');
    if (h & 1) return Buffer.concat(out);
  }
}

/** A raw JSON-RPC client over one WebSocket: `call` waits for its answer, `next` for the first matching message. */
export async function openWs(url: string) {
  const ws = new WebSocket(url);
  await once(ws, 'open');
  const queue: any[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (d) => {
    queue.push(JSON.parse(d.toString()));
    for (const w of waiters.splice(0)) w();
  });
  let id = 0;
  const next = async (match: (m: any) => boolean = () => true, timeoutMs = 5000): Promise<any> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = queue.findIndex(match);
      if (i >= 0) return queue.splice(i, 1)[0];
      if (Date.now() > deadline) throw new Error(`no matching message in ${timeoutMs} ms; queue: ${JSON.stringify(queue).slice(0, 500)}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 50);
      });
    }
  };
  const send = (msg: unknown) => ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
  return {
    ws,
    queue,
    send,
    next,
    /** The whole answer to a request. */
    async request(method: string, params?: unknown[]): Promise<any> {
      const rid = ++id;
      send(params === undefined ? { jsonrpc: '2.0', id: rid, method } : { jsonrpc: '2.0', id: rid, method, params });
      return next((m) => m.id === rid);
    },
    /** A subscription id (throws on an error answer). */
    async subscribe(method: string, params?: unknown[]): Promise<number> {
      const r = await this.request(method, params);
      if (r.error) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
      return r.result;
    },
    notification: (sub: number, timeoutMs?: number) => next((m) => m.params?.subscription === sub, timeoutMs),
    /** Messages for `sub` already received (none expected). */
    pending: (sub: number) => queue.filter((m) => m.params?.subscription === sub),
    close: async () => {
      if (ws.readyState === WebSocket.CLOSED) return;
      ws.close();
      await once(ws, 'close');
    },
  };
}
export type WsClient = Awaited<ReturnType<typeof openWs>>;
