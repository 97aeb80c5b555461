import { SECRET_PROVIDERS, SECRET_TYPES } from '../../events/secret.js';
import type { ListSpec } from '../list-query.js';

/** The secrets list (every filter and sort has an index in migration 009). */
export const secretListSpec: ListSpec = {
  resource: 'secrets',
  table: 'secrets',
  fields: {
    id: { column: 'id', type: 'uuid' },
    name: { column: 'name', type: 'text' },
    secretProvider: { column: 'secret_provider', type: 'enum', values: SECRET_PROVIDERS },
    secretType: { column: 'secret_type', type: 'enum', values: SECRET_TYPES },
    integrationId: { column: 'integration_id', type: 'uuid' },
    description: { column: 'description', type: 'text' },
    labels: { column: 'labels', type: 'text[]' },
    status: { column: 'status', type: 'enum', values: ['enabled', 'disabled'] },
    creatorId: { column: 'creator_id', type: 'uuid' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  search: ['name', 'description'],
  softDelete: true,
};
