import { catalogProjection } from './catalog-projection.js';

/** The workspaces read model. */
export const workspacesProjection = catalogProjection({
  table: 'workspaces',
  kind: 'workspace',
  eventPrefix: 'Workspace',
  columns: { name: 'text', workspace_provider: 'text', configuration: 'jsonb', integration_id: 'uuid' },
});
