import { z } from 'zod';
import { lifecycleEvents, type LifecycleEventTypes } from './kits.js';
import type { EventOf } from './define.js';

/** The tools an executor can run modules with (docs/contract.md §2). */
export const EXECUTOR_RUNTIMES = ['tofu', 'terraform'] as const;

/**
 * The fields an Executor event carries: at most one of `sourceCodeVersion` (a git tag) and
 * `sourceCodeBranch` is set; the two id lists keep the order the client gave.
 */
export const executorFields = z.object({
  name: z.string(),
  runtime: z.enum(EXECUTOR_RUNTIMES),
  commandArgs: z.string(),
  sourceCodeVersion: z.string().nullable(),
  sourceCodeBranch: z.string().nullable(),
  sourceCodeFolder: z.string(),
  storagePath: z.string(),
  sourceCodeId: z.string(),
  storageId: z.string().nullable(),
  integrationIds: z.array(z.string()),
  secretIds: z.array(z.string()),
  description: z.string(),
  labels: z.array(z.string()),
});

/** The fields an executor keeps. */
export type ExecutorFields = z.infer<typeof executorFields>;

/** The Executor event types, spelled out. */
export const executorEventTypes = {
  created: 'ExecutorCreated',
  updated: 'ExecutorUpdated',
  transitioned: 'ExecutorTransitioned',
  deleted: 'ExecutorDeleted',
} as const satisfies LifecycleEventTypes<'Executor'>;

/** The executor event definitions. */
export const executorEvents = lifecycleEvents(executorEventTypes, executorFields);

/** Every Executor event, typed by its literal name. */
export type ExecutorEvent = EventOf<(typeof executorEvents)[number]>;
