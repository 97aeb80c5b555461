import type { z } from 'zod';
import { createdEventVersioning, secretPathsOf, storedFieldsSchema } from '../model/entity.js';
import { executorEntity } from '../model/executor.js';
import type { EventOf } from './define.js';
import { lifecycleEvents, type LifecycleEventTypes } from './kits.js';

/** The fields a Executor event carries, as stored (already validated at the edge): from its declaration. */
export const executorFields = storedFieldsSchema(executorEntity);

/** The fields a executor keeps. */
export type ExecutorFields = z.infer<typeof executorFields>;

/** The Executor event types, spelled out. */
export const executorEventTypes = {
  created: 'ExecutorCreated',
  updated: 'ExecutorUpdated',
  transitioned: 'ExecutorTransitioned',
  deleted: 'ExecutorDeleted',
} as const satisfies LifecycleEventTypes<'Executor'>;

/** The executor event definitions: write-only paths and versions from the declaration. */
export const executorEvents = lifecycleEvents(
  executorEventTypes,
  executorFields,
  secretPathsOf(executorEntity),
  createdEventVersioning(executorEntity),
);

/** Every Executor event, typed by its literal name. */
export type ExecutorEvent = EventOf<(typeof executorEvents)[number]>;
