import type { z } from 'zod';
import { createdEventVersioning, secretPathsOf, storedFieldsSchema } from '../model/entity.js';
import { secretEntity } from '../model/secret.js';
import type { EventOf } from './define.js';
import { catalogEvents, type CatalogEventTypes } from './kits.js';

/** The fields a Secret event carries, as stored (already validated at the edge): from its declaration. */
export const secretFields = storedFieldsSchema(secretEntity);

/** The fields a secret keeps. */
export type SecretFields = z.infer<typeof secretFields>;

/** The Secret event types, spelled out. */
export const secretEventTypes = {
  created: 'SecretCreated',
  updated: 'SecretUpdated',
  enabled: 'SecretEnabled',
  disabled: 'SecretDisabled',
  deleted: 'SecretDeleted',
} as const satisfies CatalogEventTypes<'Secret'>;

/** The secret event definitions: write-only paths and versions from the declaration. */
export const secretEvents = catalogEvents(
  secretEventTypes,
  secretFields,
  secretPathsOf(secretEntity),
  createdEventVersioning(secretEntity),
);

/** Every Secret event, typed by its literal name. */
export type SecretEvent = EventOf<(typeof secretEvents)[number]>;
