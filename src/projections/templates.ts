import { templateEventTypes, templateFieldsSchema } from '../events/template.js';
import { templateEntity } from '../model/template.js';
import { catalogProjection, declaredColumns, declaredLinks } from './catalog-projection.js';

/** The link tables of templates, shared by the projection and the reader. */
export const TEMPLATE_LINKS = declaredLinks(templateEntity);

/** The templates read model: its columns and link tables come from the declaration. */
export const templatesProjection = catalogProjection({
  table: templateEntity.table,
  kind: templateEntity.kind,
  events: templateEventTypes,
  fields: templateFieldsSchema,
  columns: declaredColumns(templateEntity),
  links: TEMPLATE_LINKS,
});
