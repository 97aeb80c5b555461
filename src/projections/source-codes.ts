import { sourceCodeEventTypes, sourceCodeFields } from '../events/source-code.js';
import { sourceCodeEntity } from '../model/source-code.js';
import { declaredProjection } from './catalog-projection.js';

/** The source codes read model: columns, link tables and masking from the declaration. */
export const sourceCodesProjection = declaredProjection(sourceCodeEntity, sourceCodeEventTypes, sourceCodeFields);
