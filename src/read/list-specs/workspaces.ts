import { WORKSPACE_PROVIDERS } from '../../events/workspace.js';
import type { ListSpec } from '../list-query.js';
import { catalogCommonListFields } from './common.js';

/** The workspaces list (every filter and sort has an index in migration 010). */
export const workspaceListSpec: ListSpec = {
  resource: 'workspaces',
  table: 'workspaces',
  fields: {
    ...catalogCommonListFields,
    name: { column: 'name', type: 'text' },
    workspaceProvider: { column: 'workspace_provider', type: 'enum', values: WORKSPACE_PROVIDERS },
    integrationId: { column: 'integration_id', type: 'uuid' },
  },
  search: ['name', 'description'],
  softDelete: true,
};
