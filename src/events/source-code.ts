import type { z } from 'zod';
import { storedFieldsSchema } from '../model/entity.js';
import { sourceCodeEntity } from '../model/source-code.js';
import { catalogEventTypesOf } from './declared.js';

/** The fields a SourceCode event carries, as stored (already validated at the edge): from its declaration. */
export const sourceCodeFields = storedFieldsSchema(sourceCodeEntity);

/** The fields a source code keeps. */
export type SourceCodeFields = z.infer<typeof sourceCodeFields>;

/** The SourceCode event types (the codec's definitions are the declaration's: ./declared.ts). */
export const sourceCodeEventTypes = catalogEventTypesOf('SourceCode');
