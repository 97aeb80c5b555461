import { templateEventTypes, templateFieldsSchema } from '../events/template.js';
import { catalogProjection } from './catalog-projection.js';

/** The link tables of templates, shared by the projection and the reader. */
export const TEMPLATE_LINKS = [
  { table: 'template_executors', ownerColumn: 'template_id', targetColumn: 'executor_id', field: 'executor_ids' },
  { table: 'template_parents', ownerColumn: 'template_id', targetColumn: 'parent_id', field: 'parent_ids' },
] as const;

/** The templates read model. */
export const templatesProjection = catalogProjection({
  table: 'templates',
  kind: 'template',
  events: templateEventTypes,
  fields: templateFieldsSchema,
  columns: { name: 'text', template: 'text', abstract: 'boolean', cloud_resource_types: 'text[]', configuration: 'jsonb' },
  links: TEMPLATE_LINKS,
});
