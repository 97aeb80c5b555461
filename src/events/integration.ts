import type { z } from 'zod';
import { storedFieldsSchema } from '../model/entity.js';
import { integrationEntity } from '../model/integration.js';
import { catalogEventTypesOf } from './declared.js';

/** The fields a Integration event carries, as stored (already validated at the edge): from its declaration. */
export const integrationFields = storedFieldsSchema(integrationEntity);

/** The fields an integration keeps. */
export type IntegrationFields = z.infer<typeof integrationFields>;

/** The Integration event types (the codec's definitions are the declaration's: ./declared.ts). */
export const integrationEventTypes = catalogEventTypesOf('Integration');
