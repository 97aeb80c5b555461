import { storageEventTypes, storageFields } from '../events/storage.js';
import { catalogProjection } from './catalog-projection.js';

/** The storages read model. */
export const storagesProjection = catalogProjection({
  table: 'storages',
  kind: 'storage',
  events: storageEventTypes,
  fields: storageFields,
  lifecycle: true,
  columns: { name: 'text', storage_provider: 'text', storage_type: 'text', configuration: 'jsonb', integration_id: 'uuid', state: 'text', last_error: 'text' },
});
