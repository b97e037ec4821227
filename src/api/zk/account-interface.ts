/**
 * getAccountInterface / getMultipleAccountInterfaces (helius-labs/photon src/api/method/interface/*): one view of an
 * account whether it lives on chain ("hot") or compressed ("cold"): `{key, account: {lamports, data (base64),
 * owner, executable, rentEpoch, space}, cold: AccountV2[] | null}`.
 *
 * Hot: the live account through `deps.fetchAccounts` (the cluster RPC) when one is configured. Cold: the unspent
 * compressed accounts whose compressed address is the key, and the compressed token accounts the key owns.
 * Selection as Photon's: the hot account when it exists with lamports > 0 and is not older than the newest cold
 * account; otherwise the newest cold account, synthesised (a token account as the 165-byte SPL token layout,
 * anything else as discriminator ‖ data). `cold` lists every cold account, null when none; null when neither exists.
 *
 * Not covered (Photon indexes more than the store holds): accounts linked by their decompressed on-chain pubkey,
 * PDA-derived compressed addresses of compressible programs, and associated-token-account owners; `rentEpoch` of
 * hot accounts is 0 (the fetcher does not report it).
 */
import type { ApiDeps } from '../deps.js';
import { base58ToBytes } from '../../core/encoding.js';
import { getAccountsByAddress, getTokenAccounts } from '../../store/zk/accounts.js';
import type { ZkAccount, ZkTokenData } from '../../store/zk/types.js';
import { SolgateError } from '../../core/errors.js';
import { base64, u64 } from './json.js';
import { accountV2, type Json } from './serialize.js';

/** Cold accounts listed per key (token accounts beyond this are left out). */
const MAX_COLD = 1000;

function splTokenAccount(t: ZkTokenData): Uint8Array {
  const buf = Buffer.alloc(165);
  buf.set(base58ToBytes(t.mint), 0);
  buf.set(base58ToBytes(t.owner), 32);
  buf.writeBigUInt64LE(t.amount, 64);
  if (t.delegate) {
    buf.writeUInt32LE(1, 72);
    buf.set(base58ToBytes(t.delegate), 76);
  }
  buf[108] = t.state === 'frozen' ? 2 : 1;
  return new Uint8Array(buf);
}

function synthesised(a: ZkAccount, token: ZkTokenData | undefined): Json {
  let data: Uint8Array;
  if (token) data = splTokenAccount(token);
  else if (a.data) {
    const d = Buffer.alloc(8 + a.data.data.length);
    d.writeBigUInt64LE(a.data.discriminator, 0);
    d.set(a.data.data, 8);
    data = new Uint8Array(d);
  } else data = new Uint8Array();
  return { lamports: u64(a.lamports), data: base64(data), owner: a.owner, executable: false, rentEpoch: 0, space: data.length };
}

/** The interfaces of `keys`, aligned with them (null where neither a hot nor a cold account exists). */
export async function accountInterfaces(deps: ApiDeps, keys: readonly string[]): Promise<(Json | null)[]> {
  const [hot, byAddress, tokenPages] = await Promise.all([
    deps.fetchAccounts
      ? deps.fetchAccounts([...keys]).catch((e: unknown) => {
          throw new SolgateError('INTERNAL', 'Unexpected Error: RPC error while reading on-chain accounts', { cause: e });
        })
      : Promise.resolve([]),
    getAccountsByAddress(deps.db, keys),
    Promise.all(keys.map((k) => getTokenAccounts(deps.db, 'owner', k, { limit: MAX_COLD }))),
  ]);
  const hotByKey = new Map(hot.map((h) => [h.pubkey as string, h]));
  return keys.map((key, i) => {
    const cold = new Map<string, { account: ZkAccount; token?: ZkTokenData }>();
    const direct = byAddress.get(key);
    if (direct) cold.set(direct.hash, { account: direct });
    for (const t of tokenPages[i].items) cold.set(t.account.hash, { account: t.account, token: t.token });
    const colds = [...cold.values()].sort((a, b) => b.account.slotCreated - a.account.slotCreated);
    const h = hotByKey.get(key);
    const newestCold = colds[0];
    let account: Json | null = null;
    if (h && h.lamports > 0n && (!newestCold || h.slot >= newestCold.account.slotCreated))
      account = { lamports: u64(h.lamports), data: base64(h.data), owner: h.owner, executable: h.executable, rentEpoch: 0, space: h.data.length };
    else if (newestCold) account = synthesised(newestCold.account, newestCold.token);
    if (!account) return null;
    return { key, account, cold: colds.length ? colds.map((c) => accountV2(c.account)) : null };
  });
}
