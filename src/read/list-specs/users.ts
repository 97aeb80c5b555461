import type { ListSpec } from '../list-query.js';
import type { UsersTable } from '../../storage/schema.js';

/** The users list (super only): filters, sorts and search over the `users` read table. */
export const userListSpec: ListSpec<'users', keyof UsersTable> = {
  resource: 'users',
  table: 'users',
  fields: {
    id: { column: 'id', type: 'uuid' },
    kind: { column: 'kind', type: 'enum', values: ['human', 'service_account', 'guest'] },
    identifier: { column: 'identifier', type: 'text' },
    email: { column: 'email', type: 'text' },
    displayName: { column: 'display_name', type: 'text' },
    provider: { column: 'provider', type: 'text' },
    roles: { column: 'roles', type: 'text[]' },
    grants: { column: 'grants', type: 'text[]' },
    deactivated: { column: 'deactivated', type: 'boolean' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  search: ['identifier', 'display_name', 'email'],
};
