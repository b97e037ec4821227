/**
 * searchAssets (alias search_assets): assets matching a set of filters (compat-facts §2.3), combined with AND
 * (`conditionType: "all"`, default) or OR (`"any"`), negated as a whole with `negate: true` — as in the reference,
 * the owner, creator, authority and grouping filters select the candidate set and are never negated; every other
 * filter is a condition. With no `supply` filter, zero-supply assets are left out unless burnt. The most selective
 * index drives the query: owner holdings, then group, creator, authority, else the asset index in sort order.
 * Coverage: an owner, collection, creator or authority the index has not covered is read from the cluster first,
 * and the answer is complete when any one of them is (`requireAnyCoverage`, docs/coverage.md).
 */
import type { CoverageNeed } from '../../../core/coverage.js';
import { SolgateError } from '../../../core/errors.js';
import { isAddress } from '../../../core/encoding.js';
import { displayOptions, namedParams, pubkey, type Params } from '../../das/params.js';
import { answerList, bind, type ListQuery } from '../../das/list-assets.js';
import { requireAnyCoverage, type RpcMethod } from '../method.js';
import { DAS_LIST_FIELDS, PUBKEY, byNameParams, nullable, paramNames, type JsonSchema } from '../params-schema.js';

const INTERFACES = ['V1_NFT', 'V1_PRINT', 'LEGACY_NFT', 'V2_NFT', 'FungibleAsset', 'FungibleToken', 'Custom', 'Identity', 'Executable', 'ProgrammableNFT', 'MplCoreAsset', 'MplCoreCollection'];

const key = (description: string): JsonSchema => nullable({ ...PUBKEY, description });
const flag = (description: string): JsonSchema => nullable({ type: 'boolean', description });
const variant = (values: string[], description: string): JsonSchema => nullable({ type: 'string', enum: values, description });

/**
 * The by-name params: the filters, then the list fields (the accepted names come from here, in this order;
 * /docs/openrpc.json describes them). Every field is optional; missing params are `{}`.
 */
export const paramsSchema = byNameParams({
  negate: flag('negate the combined conditions (never the owner, creator, authority or grouping filters)'),
  conditionType: nullable({ type: 'string', enum: ['all', 'any'], default: 'all', description: 'combine the conditions with AND (all) or OR (any)' }),
  interface: variant(INTERFACES, 'asset interface'),
  ownerAddress: key('owner (selects the candidates)'),
  ownerType: variant(['single', 'token'], 'ownership model'),
  creatorAddress: key('a creator (selects the candidates)'),
  creatorVerified: flag('the creator entry is verified (selects the candidates)'),
  authorityAddress: key('an authority (selects the candidates)'),
  grouping: nullable({ type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 2, description: '[groupKey, groupValue] (selects the candidates)' }),
  delegate: key('delegate'),
  frozen: flag('frozen'),
  supply: nullable({ type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'exact supply (without it, zero-supply assets are left out unless burnt)' }),
  supplyMint: key('supply mint'),
  compressed: flag('compressed'),
  compressible: flag('compressible (nothing is, in this index)'),
  royaltyTargetType: variant(['creators', 'fanout', 'single'], 'royalty model'),
  royaltyTarget: key('royalty target'),
  royaltyAmount: nullable({ type: 'integer', minimum: 0, maximum: 0xffff_ffff, description: 'royalty basis points' }),
  burnt: flag('burnt'),
  jsonUri: nullable({ type: 'string', description: 'exact metadata JSON URI' }),
  name: nullable({ type: 'string', description: 'substring of the name' }),
  tree: key('Merkle tree of a compressed asset'),
  tokenType: nullable({
    type: 'string',
    description: 'fungible, nonFungible, regularNft (or nft), compressedNft (or compressed), all; case-insensitive',
    examples: ['fungible', 'nonFungible', 'regularNft', 'compressedNft', 'all'],
  }),
  ...DAS_LIST_FIELDS,
});

/** tokenType values: the Helius spellings and the reference's, case-insensitively. */
const TOKEN_TYPES: Record<string, string> = {
  fungible: "a.owner_type = 'token'",
  nonfungible: "a.owner_type = 'single'",
  regularnft: "a.owner_type = 'single' AND NOT a.compressed",
  nft: "a.owner_type = 'single' AND NOT a.compressed",
  compressednft: 'a.compressed',
  compressed: 'a.compressed',
  all: 'a.owner_type IS NOT NULL',
};

function bool(p: Params, k: string): boolean | undefined {
  const v = p[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw new SolgateError('INVALID_PARAMS', `Invalid params: \`${k}\` must be a boolean`);
  return v;
}

function uint(p: Params, k: string, max: number): number | undefined {
  const v = p[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) throw new SolgateError('INVALID_PARAMS', `Invalid params: \`${k}\` must be an integer from 0 to ${max}`);
  return v;
}

function oneOf(p: Params, k: string, values: string[]): string | undefined {
  const v = p[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || !values.includes(v)) throw new SolgateError('INVALID_PARAMS', `Invalid params: unknown variant \`${String(v)}\` of \`${k}\`, expected one of ${values.map((x) => `\`${x}\``).join(', ')}`);
  return v;
}

function optKey(p: Params, k: string): string | undefined {
  return p[k] === undefined || p[k] === null ? undefined : pubkey(p[k], k);
}

export const searchAssets: RpcMethod = {
  name: 'searchAssets',
  aliases: ['search_assets'],
  credits: 10,
  paramsSchema,
  async handler(params, deps, ctx) {
    const p = namedParams(params, paramNames(paramsSchema));
    const opts = displayOptions(p);
    const query: ListQuery = { drive: { kind: 'assets' }, where: [], params: [] };

    // Candidate set (never negated).
    const owner = optKey(p, 'ownerAddress');
    const creator = optKey(p, 'creatorAddress');
    const creatorVerified = bool(p, 'creatorVerified');
    const authority = optKey(p, 'authorityAddress');
    let grouping: [string, string] | undefined;
    if (p.grouping !== undefined && p.grouping !== null) {
      const g = p.grouping;
      if (!Array.isArray(g) || g.length !== 2 || typeof g[0] !== 'string' || typeof g[1] !== 'string')
        throw new SolgateError('INVALID_PARAMS', 'Invalid params: `grouping` must be [groupKey, groupValue]');
      grouping = [g[0], g[1]];
    }
    const candidates: string[] = [];
    const creatorWhere = (alias: string) => [
      ...(creator !== undefined ? [`${alias}.creator = ${bind(query, creator)}`] : []),
      ...(creatorVerified !== undefined ? [`${alias}.verified = ${bind(query, creatorVerified)}`] : []),
    ];
    if (owner !== undefined) query.drive = { kind: 'holdings', ownerParam: bind(query, owner), zeroBalance: opts.showZeroBalance };
    if (grouping) {
      const [keyParam, valueParam] = [bind(query, grouping[0]), bind(query, grouping[1])];
      const w = [`g.group_key = ${keyParam}`, `g.group_value = ${valueParam}`];
      if (query.drive.kind === 'assets') query.drive = { kind: 'side', table: 'das_asset_groups', where: w.map((c) => c.replaceAll('g.', 's.')) };
      // Owner and grouping: the owner's holdings in the group, one index range (list-assets.ts).
      else if (query.drive.kind === 'holdings') query.drive.group = { keyParam, valueParam };
      else candidates.push(`EXISTS (SELECT 1 FROM das_asset_groups g WHERE g.asset_id = a.id AND ${w.join(' AND ')})`);
    }
    if (creator !== undefined || creatorVerified !== undefined) {
      if (query.drive.kind === 'assets') query.drive = { kind: 'side', table: 'das_asset_creators', where: creatorWhere('s') };
      else candidates.push(`EXISTS (SELECT 1 FROM das_asset_creators c WHERE c.asset_id = a.id AND ${creatorWhere('c').join(' AND ')})`);
    }
    if (authority !== undefined) {
      if (query.drive.kind === 'assets') query.drive = { kind: 'side', table: 'das_asset_authorities', where: [`s.authority = ${bind(query, authority)}`] };
      else candidates.push(`EXISTS (SELECT 1 FROM das_asset_authorities au WHERE au.asset_id = a.id AND au.authority = ${bind(query, authority)})`);
    }

    // Conditions (combined by conditionType, negated by negate).
    const conds: string[] = [];
    const iface = oneOf(p, 'interface', INTERFACES);
    if (iface !== undefined) conds.push(`a.interface = ${bind(query, iface)}`);
    if (p.tokenType !== undefined && p.tokenType !== null) {
      const t = typeof p.tokenType === 'string' ? TOKEN_TYPES[p.tokenType.toLowerCase()] : undefined;
      if (!t) throw new SolgateError('INVALID_PARAMS', `Invalid params: unknown variant \`${String(p.tokenType)}\` of \`tokenType\`, expected one of \`fungible\`, \`nonFungible\`, \`regularNft\`, \`compressedNft\`, \`all\``);
      conds.push(t);
    }
    const delegate = optKey(p, 'delegate');
    if (delegate !== undefined) conds.push(`a.delegate = ${bind(query, delegate)}`);
    for (const [k, col] of [['frozen', 'frozen'], ['compressed', 'compressed'], ['burnt', 'burnt']] as const) {
      const v = bool(p, k);
      if (v !== undefined) conds.push(`a.${col} = ${bind(query, v)}`);
    }
    // Nothing is compressible in this index (the reference has no producer of it either).
    const compressible = bool(p, 'compressible');
    if (compressible !== undefined) conds.push(compressible ? 'false' : 'true');
    const supplyMint = optKey(p, 'supplyMint');
    if (supplyMint !== undefined) conds.push(`a.supply_mint = ${bind(query, supplyMint)}`);
    const rtt = oneOf(p, 'royaltyTargetType', ['creators', 'fanout', 'single']);
    if (rtt !== undefined) conds.push(`a.royalty_target_type = ${bind(query, rtt)}`);
    const rt = optKey(p, 'royaltyTarget');
    if (rt !== undefined) conds.push(`a.royalty_target = ${bind(query, rt)}`);
    const ra = uint(p, 'royaltyAmount', 0xffff_ffff);
    if (ra !== undefined) conds.push(`a.royalty_amount = ${bind(query, ra)}`);
    const supply = uint(p, 'supply', Number.MAX_SAFE_INTEGER);
    conds.push(supply !== undefined ? `a.supply = ${bind(query, supply)}` : '(a.supply <> 0 OR a.burnt)');
    const ownerType = oneOf(p, 'ownerType', ['single', 'token']);
    if (ownerType !== undefined) conds.push(`a.owner_type = ${bind(query, ownerType)}`);
    for (const k of ['jsonUri', 'name'] as const) {
      const v = p[k];
      if (v === undefined || v === null) continue;
      if (typeof v !== 'string') throw new SolgateError('INVALID_PARAMS', `Invalid params: \`${k}\` must be a string`);
      conds.push(k === 'jsonUri' ? `a.json_uri = ${bind(query, v)}` : `strpos(a.name, ${bind(query, v)}) > 0`);
    }
    const tree = optKey(p, 'tree');
    if (tree !== undefined) conds.push(`a.tree = ${bind(query, tree)}`);

    const conditionType = oneOf(p, 'conditionType', ['all', 'any']) ?? 'all';
    const negate = bool(p, 'negate') ?? false;
    const combined = conds.map((c) => `(${c})`).join(conditionType === 'all' ? ' AND ' : ' OR ');
    query.where.push(...candidates, negate ? `(${combined}) IS NOT TRUE` : combined);

    const keys: { need: CoverageNeed; key: string }[] = [];
    if (owner !== undefined) keys.push({ need: 'state', key: owner });
    if (grouping?.[0] === 'collection' && isAddress(grouping[1])) keys.push({ need: 'group', key: grouping[1] });
    if (creator !== undefined) keys.push({ need: 'creator', key: creator });
    if (authority !== undefined) keys.push({ need: 'authority', key: authority });
    await requireAnyCoverage(deps, ctx, keys);
    return answerList(deps.db, query, p, opts, owner, deps.tokens);
  },
};
