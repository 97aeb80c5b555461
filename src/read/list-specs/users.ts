import { userEntity } from '../../model/user.js';
import { accountListSpec } from './common.js';

/** The users list (super only): filters, sorts and search over the `users` read table, from the declaration. */
export const userListSpec = accountListSpec(userEntity);
