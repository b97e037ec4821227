/** Shared helpers for localnet tests: a JSON-RPC client over fetch and kit transaction building. */
import {
  appendTransactionMessageInstructions, compressTransactionMessageUsingAddressLookupTables, createTransactionMessage,
  generateKeyPairSigner, getBase64EncodedWireTransaction, getSignatureFromTransaction, pipe,
  setTransactionMessageFeePayerSigner, setTransactionMessageLifetimeUsingBlockhash, signTransactionMessageWithSigners,
  type Address, type Blockhash, type Instruction, type KeyPairSigner,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import * as spl from '@solana-program/token';
import { parseJsonLossless } from '../../src/sources/json.js';
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
