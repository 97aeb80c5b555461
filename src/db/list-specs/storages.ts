import { LIFECYCLE_STATES, LIFECYCLE_STATUSES } from '../../commands/lifecycle.js';
import type { ListSpec } from '../list-query.js';
import { catalogCommonListFields } from './common.js';

/** The storages list. */
export const storageListSpec: ListSpec = {
  resource: 'storages',
  table: 'storages',
  fields: {
    ...catalogCommonListFields,
    name: { column: 'name', type: 'text' },
    storageProvider: { column: 'storage_provider', type: 'enum', values: ['aws', 'azurerm', 'gcp'] },
    storageType: { column: 'storage_type', type: 'text' },
    integrationId: { column: 'integration_id', type: 'uuid' },
    state: { column: 'state', type: 'enum', values: LIFECYCLE_STATES },
    status: { column: 'status', type: 'enum', values: LIFECYCLE_STATUSES },
  },
  search: ['name', 'description'],
  softDelete: true,
};
