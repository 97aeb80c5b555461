import { storageEntity } from '../../model/storage.js';
import { declaredListSpec } from './common.js';

/** The storages list: what clients may filter, sort and search on, from the declaration. */
export const storageListSpec = declaredListSpec(storageEntity);
