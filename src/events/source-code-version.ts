import { z } from 'zod';
import { catalogEvents, type CatalogEventTypes } from './kits.js';
import type { EventOf } from './define.js';

/** Where a version stands in its life (docs/contract.md §2); new versions start as `preview`. */
export const VERSION_LIFECYCLE_STATES = ['preview', 'active', 'deprecated', 'archived'] as const;

/** One input variable of an OpenTofu module. */
export const sourceCodeVariable = z.object({
  name: z.string(),
  type: z.string(),
  required: z.boolean(),
  default: z.unknown(),
  description: z.string(),
  sensitive: z.boolean(),
});

/** One output of an OpenTofu module. */
export const sourceCodeOutput = z.object({
  name: z.string(),
  description: z.string(),
  sensitive: z.boolean(),
});

/**
 * The fields a SourceCodeVersion event carries: exactly one of `sourceCodeVersion` (a git tag) and
 * `sourceCodeBranch` is set, and `identifier` is `folder:tagOrBranch`.
 */
export const sourceCodeVersionFields = z.object({
  sourceCodeVersion: z.string().nullable(),
  sourceCodeBranch: z.string().nullable(),
  sourceCodeFolder: z.string(),
  identifier: z.string(),
  variables: z.array(sourceCodeVariable),
  outputs: z.array(sourceCodeOutput),
  lifecycleState: z.enum(VERSION_LIFECYCLE_STATES),
  templateId: z.string(),
  sourceCodeId: z.string(),
  description: z.string(),
  labels: z.array(z.string()),
});

/** The fields a source code version keeps. */
export type SourceCodeVersionFields = z.infer<typeof sourceCodeVersionFields>;
/** One input variable a source code version declares. */
export type SourceCodeVariable = z.infer<typeof sourceCodeVariable>;
/** One output a source code version declares. */
export type SourceCodeOutput = z.infer<typeof sourceCodeOutput>;

/** The SourceCodeVersion event types, spelled out. */
export const sourceCodeVersionEventTypes = {
  created: 'SourceCodeVersionCreated',
  updated: 'SourceCodeVersionUpdated',
  enabled: 'SourceCodeVersionEnabled',
  disabled: 'SourceCodeVersionDisabled',
  deleted: 'SourceCodeVersionDeleted',
} as const satisfies CatalogEventTypes<'SourceCodeVersion'>;

/** The source code version event definitions. */
export const sourceCodeVersionEvents = catalogEvents(sourceCodeVersionEventTypes, sourceCodeVersionFields);

/** Every SourceCodeVersion event, typed by its literal name. */
export type SourceCodeVersionEvent = EventOf<(typeof sourceCodeVersionEvents)[number]>;
