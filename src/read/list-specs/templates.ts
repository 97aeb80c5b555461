import type { ListSpec } from '../list-query.js';
import type { TemplatesTable } from '../../storage/schema.js';

type TemplateColumn = keyof TemplatesTable;

/**
 * The templates list: what clients may filter, sort and search on, mapped to the read table
 * (migration 002). Typed by the table's columns, so a renamed column breaks the build here.
 */
export const templateListSpec: ListSpec<'templates', TemplateColumn> = {
  resource: 'templates',
  table: 'templates',
  fields: {
    id: { column: 'id', type: 'uuid' },
    name: { column: 'name', type: 'text' },
    template: { column: 'template', type: 'text' },
    description: { column: 'description', type: 'text' },
    labels: { column: 'labels', type: 'text[]' },
    abstract: { column: 'abstract', type: 'boolean' },
    cloudResourceTypes: { column: 'cloud_resource_types', type: 'text[]' },
    configuration: { column: 'configuration', type: 'json' },
    status: { column: 'status', type: 'enum', values: ['enabled', 'disabled'] },
    creatorId: { column: 'creator_id', type: 'uuid' },
    revision: { column: 'revision', type: 'number', integer: true },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  links: {
    executorId: { table: 'template_executors', ownerColumn: 'template_id', targetColumn: 'executor_id' },
    parentId: { table: 'template_parents', ownerColumn: 'template_id', targetColumn: 'parent_id' },
  },
  search: ['name', 'template', 'description'],
  softDelete: true,
};
