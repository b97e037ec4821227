/** getMultipleAccountInterfaces: getAccountInterface for up to 100 `addresses`, aligned, null where neither exists. */
import { accountInterfaces } from '../../../zk/account-interface.js';
import { withContext } from '../../../zk/context.js';
import { validationError } from '../../../zk/errors.js';
import { list, objectParams, pubkey } from '../../../zk/params.js';
import type { RpcMethod } from '../../method.js';
import { PUBKEY, byNameParams, paramNames } from '../../params-schema.js';

const MAX_INTERFACES = 100;

/** The by-name params (the accepted names come from here; /docs/openrpc.json describes them). */
export const paramsSchema = byNameParams({ addresses: { type: 'array', items: PUBKEY, maxItems: MAX_INTERFACES } }, ['addresses']);

export const getMultipleAccountInterfaces: RpcMethod = {
  name: 'getMultipleAccountInterfaces',
  credits: 10,
  paramsSchema,
  async handler(params, deps) {
    const p = objectParams(params, paramNames(paramsSchema));
    const raw = list(p.addresses, 'addresses', false);
    if (raw.length > MAX_INTERFACES) throw validationError(`Too many addresses requested ${raw.length}. Maximum allowed: ${MAX_INTERFACES}`);
    const addresses = raw.map((a, i) => pubkey(a, `addresses[${i}]`));
    return withContext(deps, accountInterfaces(deps, addresses));
  },
};
