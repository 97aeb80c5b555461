import type { z } from 'zod';
import { createdEventVersioning, secretPathsOf, storedFieldsSchema } from '../model/entity.js';
import { webhookEntity } from '../model/webhook.js';
import type { EventOf } from './define.js';
import { catalogEvents, type CatalogEventTypes } from './kits.js';

/** The fields a Webhook event carries, as stored (already validated at the edge): from its declaration. */
export const webhookFields = storedFieldsSchema(webhookEntity);

/** The fields a webhook keeps. */
export type WebhookFields = z.infer<typeof webhookFields>;

/** The Webhook event types, spelled out. */
export const webhookEventTypes = {
  created: 'WebhookCreated',
  updated: 'WebhookUpdated',
  enabled: 'WebhookEnabled',
  disabled: 'WebhookDisabled',
  deleted: 'WebhookDeleted',
} as const satisfies CatalogEventTypes<'Webhook'>;

/** The webhook event definitions: write-only paths and versions from the declaration. */
export const webhookEvents = catalogEvents(
  webhookEventTypes,
  webhookFields,
  secretPathsOf(webhookEntity),
  createdEventVersioning(webhookEntity),
);

/** Every Webhook event, typed by its literal name. */
export type WebhookEvent = EventOf<(typeof webhookEvents)[number]>;
