import { z } from 'zod';
import { lifecycleEvents, type LifecycleEventTypes } from './kits.js';
import type { EventOf } from './define.js';

/** The clouds a storage can be in. */
export const STORAGE_PROVIDERS = ['aws', 'azurerm', 'gcp'] as const;

/** The fields a storage keeps, as stored in its events. */
export const storageFields = z.object({
  name: z.string(),
  storageProvider: z.enum(STORAGE_PROVIDERS),
  storageType: z.string(),
  configuration: z.record(z.string(), z.unknown()),
  integrationId: z.string(),
  description: z.string(),
  labels: z.array(z.string()),
});

/** The fields a storage keeps. */
export type StorageFields = z.infer<typeof storageFields>;

/** The Storage event types, spelled out. */
export const storageEventTypes = {
  created: 'StorageCreated',
  updated: 'StorageUpdated',
  transitioned: 'StorageTransitioned',
  deleted: 'StorageDeleted',
} as const satisfies LifecycleEventTypes<'Storage'>;

/** The storage event definitions. */
export const storageEvents = lifecycleEvents(storageEventTypes, storageFields);

/** Every Storage event, typed by its literal name. */
export type StorageEvent = EventOf<(typeof storageEvents)[number]>;
