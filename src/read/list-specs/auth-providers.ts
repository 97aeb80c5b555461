import { AUTH_PROVIDER_TYPES } from '../../events/auth-provider.js';
import type { ListSpec } from '../list-query.js';
import type { AuthProvidersTable } from '../../storage/schema.js';

type AuthProviderColumn = keyof AuthProvidersTable;

/**
 * The auth providers list (read table of migration 005): what administrators may filter, sort and
 * search on (`q`: name and key). The configuration is not filterable: it is per-type JSON.
 */
export const authProviderListSpec: ListSpec<'auth_providers', AuthProviderColumn> = {
  resource: 'auth_providers',
  table: 'auth_providers',
  fields: {
    id: { column: 'id', type: 'uuid' },
    key: { column: 'key', type: 'text' },
    name: { column: 'name', type: 'text' },
    type: { column: 'type', type: 'enum', values: AUTH_PROVIDER_TYPES },
    description: { column: 'description', type: 'text' },
    enabled: { column: 'enabled', type: 'boolean' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  search: ['name', 'key'],
  softDelete: true,
};
