import type { z } from 'zod';
import { storedFieldsSchema } from '../model/entity.js';
import { secretEntity } from '../model/secret.js';
import { catalogEventTypesOf } from './declared.js';

/** The fields a Secret event carries, as stored (already validated at the edge): from its declaration. */
export const secretFields = storedFieldsSchema(secretEntity);

/** The fields a secret keeps. */
export type SecretFields = z.infer<typeof secretFields>;

/** The Secret event types (the codec's definitions are the declaration's: ./declared.ts). */
export const secretEventTypes = catalogEventTypesOf('Secret');
