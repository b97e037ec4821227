/**
 * What the demo workload needs from a chain, over an in-process `LocalChain` or a JSON-RPC URL, and the
 * @solana/kit transaction signing it (and several tests) use.
 */
import type { Address } from '@solana/kit';
import { parseJsonLossless } from '../json.js';
import type { LocalChain } from './chain.js';
import { stringifyJson } from './rpc-encode.js';

export { buildWireTransaction } from './wire-tx.js';

/** The few calls the workload needs. */
export interface DemoClient {
  latestBlockhash(): Promise<{ blockhash: string; lastValidBlockHeight: number }>;
  slot(): Promise<number>;
  /** Sends; a preflight failure throws (nothing lands). */
  send(wire: Uint8Array, skipPreflight: boolean): Promise<string>;
  airdrop(to: Address, lamports: bigint): Promise<string>;
  rent(space: number): Promise<bigint>;
  /** Current (processed) state of an account, or null when it does not exist. */
  account(address: string): Promise<{ data: Uint8Array; executable: boolean } | null>;
}

export function demoClient(target: LocalChain | string): DemoClient {
  return typeof target === 'string' ? urlClient(target) : chainClient(target);
}

function chainClient(chain: LocalChain): DemoClient {
  return {
    latestBlockhash: async () => chain.latestBlockhash(),
    slot: async () => chain.slot,
    send: async (wire, skipPreflight) => {
      const out = chain.sendTransaction(wire, { skipPreflight });
      if (out.kind === 'preflight-failed') throw new Error(`preflight failed: ${JSON.stringify(out.simulation.err)}`);
      return out.signature;
    },
    airdrop: (to, lamports) => chain.requestAirdrop(to, lamports),
    rent: async (space) => chain.minimumBalanceForRentExemption(space),
    account: async (address) => {
      const a = chain.getAccount(address);
      return a ? { data: a.data, executable: a.executable } : null;
    },
  };
}

function urlClient(url: string): DemoClient {
  let id = 0;
  const call = async (method: string, params: unknown[]): Promise<any> => {
    const res = await fetch(url, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: stringifyJson({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    const body = parseJsonLossless(await res.text()) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  };
  return {
    latestBlockhash: async () => (await call('getLatestBlockhash', [])).value,
    slot: () => call('getSlot', []),
    send: (wire, skipPreflight) =>
      call('sendTransaction', [Buffer.from(wire).toString('base64'), { encoding: 'base64', skipPreflight }]),
    airdrop: (to, lamports) => call('requestAirdrop', [to, lamports]),
    rent: async (space) => BigInt(await call('getMinimumBalanceForRentExemption', [space])),
    account: async (address) => {
      const { value } = await call('getAccountInfo', [address, { encoding: 'base64', commitment: 'processed' }]);
      if (!value) return null;
      return { data: new Uint8Array(Buffer.from(value.data[0], 'base64')), executable: value.executable === true };
    },
  };
}

