import { storageEventTypes, storageFields } from '../events/storage.js';
import { storageEntity } from '../model/storage.js';
import { declaredProjection } from './catalog-projection.js';

/** The storages read model: columns, link tables and masking from the declaration. */
export const storagesProjection = declaredProjection(storageEntity, storageEventTypes, storageFields);
