import type { z } from 'zod';
import { createdEventVersioning, secretPathsOf, storedFieldsSchema } from '../model/entity.js';
import { resourceEntity } from '../model/resource.js';
import type { EventOf } from './define.js';
import { lifecycleEvents, type LifecycleEventTypes } from './kits.js';

/** The fields a Resource event carries, as stored (already validated at the edge): from its declaration. */
export const resourceFields = storedFieldsSchema(resourceEntity);

/** The fields a resource keeps. */
export type ResourceFields = z.infer<typeof resourceFields>;

/** The Resource event types, spelled out. */
export const resourceEventTypes = {
  created: 'ResourceCreated',
  updated: 'ResourceUpdated',
  transitioned: 'ResourceTransitioned',
  deleted: 'ResourceDeleted',
} as const satisfies LifecycleEventTypes<'Resource'>;

/** The resource event definitions: write-only paths and versions from the declaration. */
export const resourceEvents = lifecycleEvents(
  resourceEventTypes,
  resourceFields,
  secretPathsOf(resourceEntity),
  createdEventVersioning(resourceEntity),
  // The audit log shows what the resource read model shows: only sensitive variable values are hidden.
  resourceEntity.secrets.when,
);

/** Every Resource event, typed by its literal name. */
export type ResourceEvent = EventOf<(typeof resourceEvents)[number]>;
