/** getMultipleAccountInterfaces: getAccountInterface for up to 100 `addresses`, aligned, null where neither exists. */
import { accountInterfaces } from '../../../zk/account-interface.js';
import { withContext } from '../../../zk/context.js';
import { validationError } from '../../../zk/errors.js';
import { list, objectParams, pubkey } from '../../../zk/params.js';
import type { RpcMethod } from '../../method.js';

const MAX_INTERFACES = 100;

export const getMultipleAccountInterfaces: RpcMethod = {
  name: 'getMultipleAccountInterfaces',
  credits: 10,
  async handler(params, deps) {
    const p = objectParams(params, ['addresses']);
    const raw = list(p.addresses, 'addresses', false);
    if (raw.length > MAX_INTERFACES) throw validationError(`Too many addresses requested ${raw.length}. Maximum allowed: ${MAX_INTERFACES}`);
    const addresses = raw.map((a, i) => pubkey(a, `addresses[${i}]`));
    return withContext(deps, accountInterfaces(deps, addresses));
  },
};
