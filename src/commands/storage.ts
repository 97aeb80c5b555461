import { type StorageFields, storageEventTypes } from '../events/storage.js';
import { lifecycleAggregate } from './lifecycle-entity.js';

/** Storages (state backends): unique names; provider fixed; provisioned through the lifecycle without approval. */
export const storageAggregate = lifecycleAggregate<StorageFields>({
  kind: 'storage',
  events: storageEventTypes,
  approvals: false,
  immutable: ['storageProvider'],
  uniqueKeys: (f) => [{ key: `storage-name:${f.name.toLowerCase()}`, field: 'name', message: `a storage named "${f.name}" already exists` }],
  references: (f) => [{ kind: 'integration', id: f.integrationId, field: 'integrationId' }],
});
