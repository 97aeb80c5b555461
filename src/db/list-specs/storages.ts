import { LIFECYCLE_STATES, LIFECYCLE_STATUSES } from '../../commands/lifecycle.js';
import type { ListSpec } from '../list-query.js';

/** The storages list. */
export const storageListSpec: ListSpec = {
  resource: 'storages',
  table: 'storages',
  fields: {
    id: { column: 'id', type: 'uuid' },
    name: { column: 'name', type: 'text' },
    storageProvider: { column: 'storage_provider', type: 'enum', values: ['aws', 'azurerm', 'gcp'] },
    storageType: { column: 'storage_type', type: 'text' },
    integrationId: { column: 'integration_id', type: 'uuid' },
    state: { column: 'state', type: 'enum', values: LIFECYCLE_STATES },
    status: { column: 'status', type: 'enum', values: LIFECYCLE_STATUSES },
    description: { column: 'description', type: 'text' },
    labels: { column: 'labels', type: 'text[]' },
    creatorId: { column: 'creator_id', type: 'uuid' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  search: ['name', 'description'],
  softDelete: true,
};
