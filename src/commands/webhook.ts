import { webhookEventTypes, type WebhookFields } from '../events/webhook.js';
import { webhookEntity } from '../model/webhook.js';
import { catalogAggregate, declaredRules } from './catalog-entity.js';

/** Webhooks: a name is unique (case-insensitive); the rest is the declaration's (the kinds a caller may ask for are the edge's). */
export const webhookAggregate = catalogAggregate<WebhookFields>({ ...declaredRules(webhookEntity), events: webhookEventTypes });
