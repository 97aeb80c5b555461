import type { z } from 'zod';
import { storedFieldsSchema } from '../model/entity.js';
import { storageEntity } from '../model/storage.js';
import { lifecycleEventTypesOf } from './declared.js';

/** The fields a Storage event carries, as stored (already validated at the edge): from its declaration. */
export const storageFields = storedFieldsSchema(storageEntity);

/** The fields a storage keeps. */
export type StorageFields = z.infer<typeof storageFields>;

/** The Storage event types (the codec's definitions are the declaration's: ./declared.ts). */
export const storageEventTypes = lifecycleEventTypesOf('Storage');
