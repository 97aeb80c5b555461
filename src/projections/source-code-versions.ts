import { sourceCodeVersionEventTypes, sourceCodeVersionFields } from '../events/source-code-version.js';
import { sourceCodeVersionEntity } from '../model/source-code-version.js';
import { declaredProjection } from './catalog-projection.js';

/** The source code versions read model: columns, link tables and masking from the declaration. */
export const sourceCodeVersionsProjection = declaredProjection(
  sourceCodeVersionEntity,
  sourceCodeVersionEventTypes,
  sourceCodeVersionFields,
);
