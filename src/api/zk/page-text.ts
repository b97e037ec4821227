/**
 * Pages of accounts by owner and of token accounts by owner or delegate (getCompressedAccountsByOwner[V2],
 * getCompressedTokenAccountsBy{Owner,Delegate}[V2]) as JSON text: PostgreSQL writes the items (`zk_owner_accounts_page`,
 * `zk_token_accounts_page`, migration 041) with a placeholder for each key, which has no base58 there; here each
 * placeholder becomes its key's base58 and the text is wrapped in Photon's envelope. The answer is a `RawJson` that
 * the JSON-RPC serializer copies: no rows of many columns to parse, no objects to build and serialise. The text is
 * the one `stringifyRpc` writes for what the `{context, value}` envelope + `accountV1`/`accountV2` + `tokenData`
 * (serialize.ts) build from the same rows, which test/zk/page-text.test.ts checks against that path. Every string written is
 * base58, base64 or a token state, none of which JSON escapes.
 */
import { bytesToBase58 } from '../../core/encoding.js';
import { nodeToBase58 } from '../../proofs/hash.js';
import type { PageText } from '../../store/zk/account-reads.js';
import { RawJson } from '../wire/json.js';

/** Placeholder of a key that recurs across rows (owner, tree, queue, mint, delegate): base58 through the key cache. */
const SHARED = 1;
/** Placeholder of a value of the row's own (hash, address, data hash): base58 without touching the key cache. */
const OWN = 2;

/** The items' text with every placeholder replaced by its key's base58. */
export function fillKeys(items: string, keys: Uint8Array): string {
  let out = '';
  let from = 0;
  let k = 0;
  for (let i = 0; i < items.length; i++) {
    const c = items.charCodeAt(i);
    if (c !== SHARED && c !== OWN) continue;
    if (k + 32 > keys.length) throw new Error('a page of accounts: fewer keys than placeholders');
    const key = keys.subarray(k, k + 32);
    out += items.slice(from, i) + (c === SHARED ? bytesToBase58(key) : nodeToBase58(key));
    k += 32;
    from = i + 1;
  }
  if (k !== keys.length) throw new Error('a page of accounts: more keys than placeholders');
  return out + items.slice(from);
}

/**
 * `{context: {slot}, value: {items, cursor}}` of a page as JSON text: items `{account, tokenData}` of a token page or
 * accounts of an owner page.
 */
export function pageAnswer(page: PageText): RawJson {
  const cursor = page.cursor === null ? 'null' : `"${page.cursor}"`;
  return new RawJson(`{"context":{"slot":${page.slot ?? 0}},"value":{"items":[${fillKeys(page.items, page.keys)}],"cursor":${cursor}}}`);
}
