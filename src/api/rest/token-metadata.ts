/**
 * Legacy REST `POST /v0/token-metadata` (deprecated upstream in favour of the asset queries): for each mint, in
 * request order, its mint account, its Token Metadata account, optionally its off-chain JSON, and its token-list
 * entry — from what the database holds (service-interface "Legacy REST").
 *
 * Body `{mintAccounts: string[] (1..100 base58 pubkeys), includeOffChain?: bool, disableCache?: bool}`; a bad body
 * is a 400 in the REST error format `{error, code, details?}`. Each section carries `error`: "" when fine, else
 * what is missing or what failed (a missing section is never a request error).
 *
 * Sources:
 * - `onChainAccountInfo`: the `mints` row (decimals, supply, authorities, owning program) and the account's
 *   lamports (`sol_balances`; the rent-exempt minimum when not seen). `space` is 82 for a mint without Token-2022
 *   extensions; with extensions it is derived from a rent-exempt balance, else null. `rentEpoch` is u64::MAX, what
 *   the cluster reports for every rent-exempt account.
 * - `onChainMetadata`: the Token Metadata account (asset_accounts `tm.metadata`), in the Metaplex JS field names.
 * - `offChainMetadata` (includeOffChain): the document at the metadata uri (Token Metadata, else the Token-2022
 *   `tokenMetadata` extension), keys camelCased (`trait_type` → `traitType`, `seller_fee_basis_points` →
 *   `sellerFeeBasisPoints`). With the fetcher wired (`offchain` in the deps) a uri without a stored document is
 *   fetched now, and `disableCache` refetches; without it, stored documents are served and missing uris queued.
 * - `legacyMetadata`: the token registry entry (SOLGATE_TOKENS_FILE) as a token-list entry, else null.
 */
import type { FastifyInstance } from 'fastify';
import { SolgateError } from '../../core/errors.js';
import { isAddress } from '../../core/encoding.js';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../../core/programs.js';
import { contextSlotHeader, contextSlotOnSuccess, minContextHook, minContextSlotSchema } from './min-context.js';
import { getMetadataByMint, type StoredAssetAccount, type StoredTmMetadata } from '../../store/asset-accounts.js';
import { enqueueUris, getOffchainEntries, type OffchainEntry } from '../../store/offchain.js';
import { queryExtensions, queryMints, type ExtensionRow, type MintInfo } from '../../store/token-reads.js';
import type { TokenInfo } from '../../pricing/token-registry.js';
import type { ApiDeps } from '../deps.js';
import { createAuthenticator } from '../plugins/auth.js';
import { meterHook } from '../plugins/metering.js';
import { normalizeError } from '../plugins/errors.js';
import { restErrorBody } from '../wire/errors.js';

export const MAX_MINT_ACCOUNTS = 100;
/** On-demand off-chain fetches in flight for one request. */
const FETCH_CONCURRENCY = 16;
const MINT_SIZE = 82;
/** Rent-exempt minimum = (128 + space) × 3480 lamports/byte-year × 2 years. */
const RENT_PER_BYTE = 3480 * 2;
const ACCOUNT_OVERHEAD = 128;
/** Placeholder swapped for the literal u64::MAX when serialising (JSON numbers above 2^53 lose digits in JS). */
const U64_MAX_SENTINEL = '\u0000u64max';
const U64_MAX = '18446744073709551615';

/** What the endpoint needs (the off-chain fetcher is in ApiDeps when the process runs one). */
export type TokenMetadataDeps = ApiDeps;

interface Body {
  mintAccounts: string[];
  includeOffChain?: boolean;
  disableCache?: boolean;
}

const bodySchema = {
  type: 'object',
  properties: {
    mintAccounts: { type: 'array', items: { type: 'string' } },
    includeOffChain: { type: 'boolean' },
    disableCache: { type: 'boolean' },
  },
  required: ['mintAccounts'],
} as const;

/** The /v0/token-metadata interface: key auth, the route, REST errors. */
export async function tokenMetadataApi(app: FastifyInstance, deps: ApiDeps): Promise<void> {
  const authenticate = createAuthenticator(deps.db, 'rest');
  app.addHook('preValidation', authenticate);
  app.addHook('preValidation', meterHook(deps, () => ({ bucket: 'das', cost: 'tokenMetadata', method: 'token-metadata' })));
  app.setErrorHandler((err, req, reply) => {
    const e = normalizeError(err);
    if (e.code === 'INTERNAL') req.log.error({ err }, 'token-metadata: internal error');
    const { status, body } = restErrorBody(e);
    if (e.retryAfter !== undefined) reply.header('retry-after', String(e.retryAfter));
    contextSlotHeader(e, reply);
    reply.status(status).send(body);
  });
  // ?minContextSlot: the metadata is read from the index (./min-context.ts).
  app.addHook('preHandler', minContextHook(deps));
  app.addHook('onSend', contextSlotOnSuccess(deps));
  app.post('/v0/token-metadata', { schema: { body: bodySchema, querystring: { type: 'object', properties: { minContextSlot: minContextSlotSchema } } } }, async (req, reply) => {
    const body = req.body as Body;
    const mints = body.mintAccounts;
    if (mints.length === 0) throw new SolgateError('INVALID_PARAMS', 'mintAccounts must not be empty');
    if (mints.length > MAX_MINT_ACCOUNTS)
      throw new SolgateError('INVALID_PARAMS', 'Too many mintAccounts', { details: `at most ${MAX_MINT_ACCOUNTS} mint accounts per request, got ${mints.length}` });
    const bad = mints.find((m) => !isAddress(m));
    if (bad !== undefined) throw new SolgateError('INVALID_PARAMS', 'Invalid mint account', { details: `'${bad}' is not a valid Solana address` });
    const out = await tokenMetadata(deps, mints, { includeOffChain: body.includeOffChain ?? false, disableCache: body.disableCache ?? false });
    const json = JSON.stringify(out).replaceAll(JSON.stringify(U64_MAX_SENTINEL), U64_MAX);
    return reply.type('application/json; charset=utf-8').send(json);
  });
}

/** The response entries for `mints` (in order, duplicates repeated). */
export async function tokenMetadata(
  deps: TokenMetadataDeps,
  mints: string[],
  opts: { includeOffChain: boolean; disableCache: boolean },
): Promise<Record<string, unknown>[]> {
  const db = deps.db;
  const unique = [...new Set(mints)];
  const [mintInfo, lamports, metas, exts, registry] = await Promise.all([
    queryMints(db, unique),
    queryLamports(db, unique),
    getMetadataByMint(db, unique),
    queryExtensions(db, unique),
    deps.tokens.lookup(unique),
  ]);

  const uriOf = new Map<string, string>();
  for (const m of unique) {
    const u = metadataUri(metas.get(m), exts.get(m));
    if (u !== null) uriOf.set(m, u);
  }
  const docs = opts.includeOffChain ? await offchainEntries(deps, [...new Set(uriOf.values())], opts.disableCache) : new Map<string, OffchainEntry>();

  return mints.map((m) => {
    const entry: Record<string, unknown> = {
      account: m,
      onChainAccountInfo: accountInfo(m, mintInfo.get(m), lamports.get(m), exts.get(m)),
      onChainMetadata: onChainMetadata(m, metas.get(m)),
    };
    if (opts.includeOffChain) entry.offChainMetadata = offChainMetadata(uriOf.get(m), docs);
    entry.legacyMetadata = legacyMetadata(m, registry.get(m), mintInfo.get(m));
    return entry;
  });
}

async function queryLamports(db: ApiDeps['db'], addresses: string[]): Promise<Map<string, number>> {
  const { rows } = await db.query<{ address: string; lamports: string }>(
    'SELECT address, lamports::text AS lamports FROM sol_balances WHERE address = ANY($1::text[])',
    [addresses],
  );
  return new Map(rows.map((r) => [r.address, Number(r.lamports)]));
}

/** The metadata uri of a mint: its Token Metadata account's, else its Token-2022 `tokenMetadata` extension's. */
function metadataUri(meta: StoredAssetAccount | undefined, exts: ExtensionRow[] | undefined): string | null {
  if (meta?.kind === 'tm.metadata') {
    const u = (meta.data as { uri?: unknown }).uri;
    if (typeof u === 'string') return u;
  }
  const ext = exts?.find((e) => e.extension === 'tokenMetadata');
  const u = (ext?.data as { uri?: unknown } | undefined)?.uri;
  return typeof u === 'string' ? u.replace(/\u0000/g, '').trim() : null;
}

async function offchainEntries(deps: TokenMetadataDeps, uris: string[], disableCache: boolean): Promise<Map<string, OffchainEntry>> {
  const fetchable = uris.filter((u) => u.trim() !== '');
  const out = new Map<string, OffchainEntry>();
  if (!fetchable.length) return out;
  const fetcher = deps.offchain;
  if (!fetcher) {
    const stored = await getOffchainEntries(deps.db, fetchable);
    const missing = fetchable.filter((u) => !stored.has(u));
    if (missing.length) await enqueueUris(deps.db, missing);
    return stored;
  }
  let next = 0;
  const worker = async () => {
    while (next < fetchable.length) {
      const u = fetchable[next++];
      out.set(u, await fetcher.fetchNow(u, { disableCache }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(FETCH_CONCURRENCY, fetchable.length) }, worker));
  return out;
}

function programLabel(program: string): string | null {
  return program === TOKEN_PROGRAM ? 'spl-token' : program === TOKEN_2022_PROGRAM ? 'spl-token-2022' : null;
}

function accountInfo(mint: string, info: MintInfo | undefined, lamports: number | undefined, exts: ExtensionRow[] | undefined): Record<string, unknown> {
  if (!info || info.decimals === null || info.program === null)
    return { accountInfo: null, error: `mint account ${mint} not found (not an indexed token mint)` };
  const hasExtensions = (exts ?? []).length > 0;
  let space: number | null = MINT_SIZE;
  if (info.program === TOKEN_2022_PROGRAM && hasExtensions)
    space = lamports !== undefined && lamports % RENT_PER_BYTE === 0 && lamports / RENT_PER_BYTE - ACCOUNT_OVERHEAD > MINT_SIZE ? lamports / RENT_PER_BYTE - ACCOUNT_OVERHEAD : null;
  return {
    accountInfo: {
      key: mint,
      isSigner: false,
      isWritable: false,
      lamports: lamports ?? (space === null ? null : (ACCOUNT_OVERHEAD + space) * RENT_PER_BYTE),
      data: {
        parsed: {
          info: {
            decimals: info.decimals,
            freezeAuthority: info.freezeAuthority,
            isInitialized: true,
            mintAuthority: info.mintAuthority,
            supply: (info.supply ?? 0n).toString(),
          },
          type: 'mint',
        },
        program: programLabel(info.program),
        space,
      },
      owner: info.program,
      executable: false,
      rentEpoch: U64_MAX_SENTINEL,
    },
    error: '',
  };
}


function onChainMetadata(mint: string, meta: StoredAssetAccount | undefined): Record<string, unknown> {
  if (!meta) return { metadata: null, error: `no Token Metadata account indexed for mint ${mint}` };
  if (meta.kind !== 'tm.metadata') return { metadata: null, error: `the Token Metadata account of mint ${mint} is closed` };
  const d = meta.data as unknown as StoredTmMetadata;
  return {
    metadata: {
      key: 'MetadataV1',
      mint: d.mint,
      updateAuthority: d.updateAuthority,
      data: {
        name: d.name,
        symbol: d.symbol,
        uri: d.uri,
        sellerFeeBasisPoints: d.sellerFeeBasisPoints,
        creators: (d.creators ?? []).map((c) => ({ address: c.address, share: c.share, verified: c.verified })),
      },
      tokenStandard: d.tokenStandard,
      primarySaleHappened: d.primarySaleHappened,
      isMutable: d.isMutable,
      editionNonce: d.editionNonce,
      collection: d.collection ? { key: d.collection.key, verified: d.collection.verified } : null,
      collectionDetails: d.collectionDetails ? { size: Number(d.collectionDetails.size ?? 0) } : null,
      uses: d.uses ? { useMethod: d.uses.useMethod, remaining: Number(d.uses.remaining), total: Number(d.uses.total) } : null,
    },
    error: '',
  };
}

/** snake_case → camelCase (other keys unchanged). */
const camel = (k: string) => k.replace(/_+([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** An off-chain document with camelCased keys at every level. */
export function camelCaseKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(camelCaseKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [camel(k), camelCaseKeys(x)]));
  return v;
}

function offChainMetadata(uri: string | undefined, docs: Map<string, OffchainEntry>): Record<string, unknown> {
  if (uri === undefined) return { metadata: null, uri: '', error: 'no on-chain metadata with a uri for this mint' };
  if (uri.trim() === '') return { metadata: null, uri, error: 'the on-chain metadata uri is empty' };
  const e = docs.get(uri);
  if (e?.content) return { metadata: camelCaseKeys(e.content), uri, error: '' };
  if (e?.error) return { metadata: null, uri, error: `fetching the off-chain metadata failed: ${e.error}` };
  return { metadata: null, uri, error: 'off-chain metadata not fetched yet' };
}

function legacyMetadata(mint: string, t: TokenInfo | undefined, info: MintInfo | undefined): Record<string, unknown> | null {
  if (!t || (!t.symbol && !t.name)) return null;
  return {
    chainId: 101,
    address: mint,
    symbol: t.symbol ?? '',
    name: t.name ?? '',
    decimals: info?.decimals ?? null,
    logoURI: t.logoUri ?? null,
    tags: [],
    extensions: {},
  };
}
