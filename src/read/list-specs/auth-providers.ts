import { authProviderEntity } from '../../model/auth-provider.js';
import { accountListSpec } from './common.js';

/**
 * The auth providers list (src/model/auth-provider.ts): what administrators may filter, sort and
 * search on (`q`: name and key). The configuration is not filterable: it is per-type JSON.
 */
export const authProviderListSpec = accountListSpec(authProviderEntity);
