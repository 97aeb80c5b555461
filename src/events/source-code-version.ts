import type { z } from 'zod';
import { storedFieldsSchema } from '../model/entity.js';
import { sourceCodeVersionEntity } from '../model/source-code-version.js';
import { catalogEventTypesOf } from './declared.js';

/** The fields a SourceCodeVersion event carries, as stored (already validated at the edge): from its declaration. */
export const sourceCodeVersionFields = storedFieldsSchema(sourceCodeVersionEntity);

/** The fields a source code version keeps. */
export type SourceCodeVersionFields = z.infer<typeof sourceCodeVersionFields>;

/** The SourceCodeVersion event types (the codec's definitions are the declaration's: ./declared.ts). */
export const sourceCodeVersionEventTypes = catalogEventTypesOf('SourceCodeVersion');
