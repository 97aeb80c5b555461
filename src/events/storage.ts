import type { z } from 'zod';
import { createdEventVersioning, secretPathsOf, storedFieldsSchema } from '../model/entity.js';
import { storageEntity } from '../model/storage.js';
import type { EventOf } from './define.js';
import { lifecycleEvents, type LifecycleEventTypes } from './kits.js';

/** The fields a Storage event carries, as stored (already validated at the edge): from its declaration. */
export const storageFields = storedFieldsSchema(storageEntity);

/** The fields a storage keeps. */
export type StorageFields = z.infer<typeof storageFields>;

/** The Storage event types, spelled out. */
export const storageEventTypes = {
  created: 'StorageCreated',
  updated: 'StorageUpdated',
  transitioned: 'StorageTransitioned',
  deleted: 'StorageDeleted',
} as const satisfies LifecycleEventTypes<'Storage'>;

/** The storage event definitions: write-only paths and versions from the declaration. */
export const storageEvents = lifecycleEvents(
  storageEventTypes,
  storageFields,
  secretPathsOf(storageEntity),
  createdEventVersioning(storageEntity),
);

/** Every Storage event, typed by its literal name. */
export type StorageEvent = EventOf<(typeof storageEvents)[number]>;
