import { secretEventTypes, secretFields } from '../events/secret.js';
import { secretEntity } from '../model/secret.js';
import { declaredProjection } from './catalog-projection.js';

/** The secrets read model: columns, link tables and masking from the declaration. */
export const secretsProjection = declaredProjection(secretEntity, secretEventTypes, secretFields);
