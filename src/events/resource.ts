import type { z } from 'zod';
import { storedFieldsSchema } from '../model/entity.js';
import { resourceEntity } from '../model/resource.js';
import { lifecycleEventTypesOf } from './declared.js';

/** The fields a Resource event carries, as stored (already validated at the edge): from its declaration. */
export const resourceFields = storedFieldsSchema(resourceEntity);

/** The fields a resource keeps. */
export type ResourceFields = z.infer<typeof resourceFields>;

/** The Resource event types (the codec's definitions are the declaration's: ./declared.ts). */
export const resourceEventTypes = lifecycleEventTypesOf('Resource');
