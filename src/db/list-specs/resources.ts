import { LIFECYCLE_STATES, LIFECYCLE_STATUSES } from '../../commands/lifecycle.js';
import type { ListSpec } from '../list-query.js';

/** The resources list (migration 015); relation lists filter through their link tables. */
export const resourceListSpec: ListSpec = {
  resource: 'resources',
  table: 'resources',
  fields: {
    id: { column: 'id', type: 'uuid' },
    name: { column: 'name', type: 'text' },
    abstract: { column: 'abstract', type: 'boolean' },
    storagePath: { column: 'storage_path', type: 'text' },
    templateId: { column: 'template_id', type: 'uuid' },
    sourceCodeVersionId: { column: 'source_code_version_id', type: 'uuid' },
    storageId: { column: 'storage_id', type: 'uuid' },
    workspaceId: { column: 'workspace_id', type: 'uuid' },
    state: { column: 'state', type: 'enum', values: LIFECYCLE_STATES },
    status: { column: 'status', type: 'enum', values: LIFECYCLE_STATUSES },
    description: { column: 'description', type: 'text' },
    labels: { column: 'labels', type: 'text[]' },
    creatorId: { column: 'creator_id', type: 'uuid' },
    revision: { column: 'revision', type: 'number', integer: true },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  links: {
    integrationId: { table: 'resource_integrations', ownerColumn: 'resource_id', targetColumn: 'integration_id' },
    secretId: { table: 'resource_secrets', ownerColumn: 'resource_id', targetColumn: 'secret_id' },
    parentId: { table: 'resource_parents', ownerColumn: 'resource_id', targetColumn: 'parent_id' },
  },
  search: ['name', 'description'],
  softDelete: true,
};
