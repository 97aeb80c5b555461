import { z } from 'zod';
import { lifecycleEvents, type LifecycleEventTypes } from './kits.js';
import type { EventOf } from './define.js';

/**
 * Where variable values sit inside a resource's fields. The codec cannot select only sensitive
 * elements, so every value is encrypted in events; read models mask only the sensitive ones.
 */
export const RESOURCE_SECRET_PATHS = ['variables[].value'] as const;

/** One input variable of a resource; `value` is any JSON a tofu variable takes. */
export const resourceVariable = z.object({ name: z.string(), value: z.unknown(), sensitive: z.boolean() });

/** One input variable of a resource. */
export type ResourceVariable = z.infer<typeof resourceVariable>;

/** The fields a resource keeps, as stored in its events. */
export const resourceFields = z.object({
  name: z.string(),
  // Copied from the template at creation: it decides whether a source code version is required.
  abstract: z.boolean(),
  variables: z.array(resourceVariable),
  storagePath: z.string().nullable(),
  templateId: z.string(),
  sourceCodeVersionId: z.string().nullable(),
  storageId: z.string().nullable(),
  workspaceId: z.string().nullable(),
  integrationIds: z.array(z.string()),
  secretIds: z.array(z.string()),
  parentIds: z.array(z.string()),
  // The requester: owner actions (execute, destroy, recreate, delete) are theirs (docs/contract.md §2).
  creatorId: z.string().nullable(),
  description: z.string(),
  labels: z.array(z.string()),
});

/** The fields a resource keeps. */
export type ResourceFields = z.infer<typeof resourceFields>;

/** The Resource event types, spelled out. */
export const resourceEventTypes = {
  created: 'ResourceCreated',
  updated: 'ResourceUpdated',
  transitioned: 'ResourceTransitioned',
  deleted: 'ResourceDeleted',
} as const satisfies LifecycleEventTypes<'Resource'>;

/** The resource event definitions. */
export const resourceEvents = lifecycleEvents(resourceEventTypes, resourceFields, RESOURCE_SECRET_PATHS);

/** Every Resource event, typed by its literal name. */
export type ResourceEvent = EventOf<(typeof resourceEvents)[number]>;
