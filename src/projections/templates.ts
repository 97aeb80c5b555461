import { templateEventTypes, templateFieldsSchema } from '../events/template.js';
import { templateEntity } from '../model/template.js';
import { declaredProjection } from './catalog-projection.js';

/** The templates read model: columns, link tables and masking from the declaration. */
export const templatesProjection = declaredProjection(templateEntity, templateEventTypes, templateFieldsSchema);
