import { storageEventTypes, type StorageFields } from '../events/storage.js';
import { storageEntity } from '../model/storage.js';
import { declaredRules } from './catalog-entity.js';
import { lifecycleAggregate } from './lifecycle-entity.js';

/** Storages (state backends): the declared rules; provisioned through the lifecycle without approval. */
export const storageAggregate = lifecycleAggregate<StorageFields>({
  ...declaredRules(storageEntity),
  events: storageEventTypes,
  approvals: storageEntity.lifecycle.approvals,
});
