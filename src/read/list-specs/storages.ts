import type { ListSpec } from '../list-query.js';
import { lifecycleListFields } from './common.js';

/** The storages list. */
export const storageListSpec: ListSpec = {
  resource: 'storages',
  table: 'storages',
  fields: {
    ...lifecycleListFields,
    name: { column: 'name', type: 'text' },
    storageProvider: { column: 'storage_provider', type: 'enum', values: ['aws', 'azurerm', 'gcp'] },
    storageType: { column: 'storage_type', type: 'text' },
    integrationId: { column: 'integration_id', type: 'uuid' },
  },
  search: ['name', 'description'],
  softDelete: true,
};
