import { workspaceEventTypes, workspaceFields } from '../events/workspace.js';
import { catalogProjection } from './catalog-projection.js';

/** The workspaces read model. */
export const workspacesProjection = catalogProjection({
  table: 'workspaces',
  kind: 'workspace',
  events: workspaceEventTypes,
  fields: workspaceFields,
  columns: { name: 'text', workspace_provider: 'text', configuration: 'jsonb', integration_id: 'uuid' },
});
