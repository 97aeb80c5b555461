import type { ListSpec } from '../list-query.js';
import { lifecycleListFields } from './common.js';

/** The resources list (migration 015); relation lists filter through their link tables. */
export const resourceListSpec: ListSpec = {
  resource: 'resources',
  table: 'resources',
  fields: {
    ...lifecycleListFields,
    name: { column: 'name', type: 'text' },
    abstract: { column: 'abstract', type: 'boolean' },
    storagePath: { column: 'storage_path', type: 'text' },
    templateId: { column: 'template_id', type: 'uuid' },
    sourceCodeVersionId: { column: 'source_code_version_id', type: 'uuid' },
    storageId: { column: 'storage_id', type: 'uuid' },
    workspaceId: { column: 'workspace_id', type: 'uuid' },
    revision: { column: 'revision', type: 'number', integer: true },
  },
  links: {
    integrationId: { table: 'resource_integrations', ownerColumn: 'resource_id', targetColumn: 'integration_id' },
    secretId: { table: 'resource_secrets', ownerColumn: 'resource_id', targetColumn: 'secret_id' },
    parentId: { table: 'resource_parents', ownerColumn: 'resource_id', targetColumn: 'parent_id' },
  },
  search: ['name', 'description'],
  softDelete: true,
};
