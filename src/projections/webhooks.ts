import { webhookEventTypes, webhookFields } from '../events/webhook.js';
import { webhookEntity } from '../model/webhook.js';
import { declaredProjection } from './catalog-projection.js';

/** The webhooks read model: columns from the declaration, the secret masked. */
export const webhooksProjection = declaredProjection(webhookEntity, webhookEventTypes, webhookFields);
