/** GET /v1/wallet/{wallet}/identity and POST /v1/wallet/batch-identity (known entities, `.sol` domains). */
import type { FastifyInstance } from 'fastify';
import { SolgateError } from '../../../core/errors.js';
import { isAddress } from '../../../core/encoding.js';
import { getIdentities, type Identity } from '../../../store/identities.js';
import { domainNamesOf, looksLikeDomain, resolveDomain } from '../../../identity/domains.js';
import type { ApiDeps } from '../../deps.js';
import { minContextOnlyQuery, walletParamsSchema } from './common.js';

const MAX_BATCH = 100;

/** An address or a `.sol` domain → the address (null: a domain nobody owns). */
async function resolveInput(deps: ApiDeps, input: string): Promise<string | null> {
  if (isAddress(input)) return input;
  if (looksLikeDomain(input)) return resolveDomain(deps.db, input, deps.fetchAccounts);
  throw new SolgateError('INVALID_PARAMS', 'Invalid wallet address', {
    details: `'${input}' is not a valid Solana address or domain name`,
  });
}

async function render(deps: ApiDeps, id: Identity) {
  const domainNames = await domainNamesOf(deps.db, id.address);
  return { address: id.address, type: id.type, name: id.name, category: id.category, tags: id.tags, ...(domainNames.length ? { domainNames } : {}) };
}

export function registerIdentityRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/v1/wallet/:wallet/identity', { schema: { params: walletParamsSchema, querystring: minContextOnlyQuery } }, async (req) => {
    const input = (req.params as { wallet: string }).wallet;
    const address = await resolveInput(deps, input);
    if (!address) throw new SolgateError('NOT_FOUND', 'Domain not found', { details: `'${input}' is not registered` });
    const id = (await getIdentities(deps.db, [address])).get(address);
    if (!id) throw new SolgateError('NOT_FOUND', 'Wallet identity not found', { details: `${address} is not a known entity` });
    return render(deps, id);
  });

  app.post(
    '/v1/wallet/batch-identity',
    {
      schema: {
        querystring: minContextOnlyQuery,
        body: {
          type: 'object',
          properties: { addresses: { type: 'array', items: { type: 'string' } } },
          required: ['addresses'],
        },
      },
    },
    async (req) => {
      const { addresses } = req.body as { addresses: string[] };
      if (addresses.length === 0) throw new SolgateError('INVALID_PARAMS', 'addresses must not be empty');
      if (addresses.length > MAX_BATCH)
        throw new SolgateError('INVALID_PARAMS', 'Too many addresses', { details: `at most ${MAX_BATCH} addresses per request, got ${addresses.length}` });
      const resolved = await Promise.all(addresses.map((a) => resolveInput(deps, a)));
      const known = await getIdentities(deps.db, resolved.filter((a): a is string => a !== null));
      const seen = new Set<string>();
      const out = [];
      for (const a of resolved) {
        if (!a || seen.has(a)) continue;
        seen.add(a);
        const id = known.get(a);
        if (id) out.push(await render(deps, id));
      }
      return out;
    },
  );
}
