import { z } from 'zod';
import { ENABLED_STATUSES, LIFECYCLE_STATES, LIFECYCLE_STATUSES, TRANSITION_CAUSES } from '../model/lifecycle.js';
import { defineEvent, type Upcaster } from './define.js';

/**
 * The event types of the two entity kits. Names are typed literals (`'IntegrationCreated'`), and each
 * entity's events file spells them out once, so a reader can grep for any of them.
 */

/** The five event names of a catalog entity with an enabled/disabled status. */
export interface CatalogEventTypes<P extends string> {
  readonly created: `${P}Created`;
  readonly updated: `${P}Updated`;
  readonly enabled: `${P}Enabled`;
  readonly disabled: `${P}Disabled`;
  readonly deleted: `${P}Deleted`;
}

/** The four event names of a lifecycle entity (storages, executors, resources). */
export interface LifecycleEventTypes<P extends string> {
  readonly created: `${P}Created`;
  readonly updated: `${P}Updated`;
  readonly transitioned: `${P}Transitioned`;
  readonly deleted: `${P}Deleted`;
}

/**
 * The created event's schema version and its upcasters (fields added later get their defaults). An
 * update carries only changes, so older updates need no lifting: its version follows along unchanged.
 */
export interface Versioning {
  readonly version: number;
  readonly upcasters: Readonly<Record<number, Upcaster>>;
}

const UNVERSIONED: Versioning = { version: 1, upcasters: {} };

const changesVersioning = ({ version }: Versioning): Versioning => ({
  version,
  upcasters: Object.fromEntries(
    Array.from({ length: version - 1 }, (_, i) => [i + 1, (data: Readonly<Record<string, unknown>>) => ({ ...data })]),
  ),
});

/** The event definitions of a catalog entity; `secretPaths` are paths inside its fields. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- F flows into the inferred tuple of typed definitions
export function catalogEvents<P extends string, F extends z.ZodObject>(
  names: CatalogEventTypes<P>,
  fields: F,
  secretPaths: readonly string[] = [],
  versioning: Versioning = UNVERSIONED,
) {
  return [
    defineEvent(names.created, fields.extend({ id: z.string(), status: z.enum(ENABLED_STATUSES) }), { secretPaths, ...versioning }),
    defineEvent(names.updated, z.object({ changes: fields.partial() }), {
      secretPaths: secretPaths.map((p) => `changes.${p}`),
      ...changesVersioning(versioning),
    }),
    defineEvent(names.enabled, z.object({})),
    defineEvent(names.disabled, z.object({})),
    defineEvent(names.deleted, z.object({})),
  ] as const;
}

const position = { state: z.enum(LIFECYCLE_STATES), status: z.enum(LIFECYCLE_STATUSES) };

/** The event definitions of a lifecycle entity; `secretPaths` are paths inside its fields. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- F flows into the inferred tuple of typed definitions
export function lifecycleEvents<P extends string, F extends z.ZodObject>(
  names: LifecycleEventTypes<P>,
  fields: F,
  secretPaths: readonly string[] = [],
  versioning: Versioning = UNVERSIONED,
  secretWhen?: (holder: Readonly<Record<string, unknown>>) => boolean,
) {
  return [
    defineEvent(names.created, fields.extend({ id: z.string(), ...position }), { secretPaths, secretWhen, ...versioning }),
    defineEvent(names.updated, z.object({ changes: fields.partial() }), {
      secretPaths: secretPaths.map((p) => `changes.${p}`),
      secretWhen,
      ...changesVersioning(versioning),
    }),
    defineEvent(
      names.transitioned,
      // `reason`: why an approver approved or rejected (optional; absent from older events).
      // `changedFields`: with action `change`, the deployed fields whose change asks for approval again.
      z.object({
        action: z.enum(TRANSITION_CAUSES),
        ...position,
        outputs: z.record(z.string(), z.unknown()).optional(),
        error: z.string().optional(),
        reason: z.string().optional(),
        // `authority`: the right an approver decided under (`resource:admin`, `lead of team payments`, …).
        authority: z.string().optional(),
        changedFields: z.array(z.string()).optional(),
      }),
    ),
    defineEvent(names.deleted, z.object({})),
  ] as const;
}
