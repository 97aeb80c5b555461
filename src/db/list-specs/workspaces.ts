import { WORKSPACE_PROVIDERS } from '../../events/workspace.js';
import type { ListSpec } from '../list-query.js';

/** The workspaces list (every filter and sort has an index in migration 010). */
export const workspaceListSpec: ListSpec = {
  resource: 'workspaces',
  table: 'workspaces',
  fields: {
    id: { column: 'id', type: 'uuid' },
    name: { column: 'name', type: 'text' },
    workspaceProvider: { column: 'workspace_provider', type: 'enum', values: WORKSPACE_PROVIDERS },
    integrationId: { column: 'integration_id', type: 'uuid' },
    description: { column: 'description', type: 'text' },
    labels: { column: 'labels', type: 'text[]' },
    status: { column: 'status', type: 'enum', values: ['enabled', 'disabled'] },
    creatorId: { column: 'creator_id', type: 'uuid' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  search: ['name', 'description'],
  softDelete: true,
};
