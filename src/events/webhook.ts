import type { z } from 'zod';
import { storedFieldsSchema } from '../model/entity.js';
import { webhookEntity } from '../model/webhook.js';
import { catalogEventTypesOf } from './declared.js';

/** The fields a Webhook event carries, as stored (already validated at the edge): from its declaration. */
export const webhookFields = storedFieldsSchema(webhookEntity);

/** The fields a webhook keeps. */
export type WebhookFields = z.infer<typeof webhookFields>;

/** The Webhook event types (the codec's definitions are the declaration's: ./declared.ts). */
export const webhookEventTypes = catalogEventTypesOf('Webhook');
