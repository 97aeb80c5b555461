import { resourceEventTypes, resourceFields } from '../events/resource.js';
import { resourceEntity } from '../model/resource.js';
import { declaredProjection } from './catalog-projection.js';

/** The resources read model: columns, link tables and masking from the declaration. */
export const resourcesProjection = declaredProjection(resourceEntity, resourceEventTypes, resourceFields);
