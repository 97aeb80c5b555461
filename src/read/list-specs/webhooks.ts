import { webhookEntity } from '../../model/webhook.js';
import { declaredListSpec } from './common.js';

/** The webhooks list: what clients may filter, sort and search on, from the declaration. */
export const webhookListSpec = declaredListSpec(webhookEntity);
