import { type WorkspaceFields, workspaceEventTypes } from '../events/workspace.js';
import { catalogAggregate } from './catalog-entity.js';

/** Workspaces: a name is unique within its integration (case-insensitive); the provider is fixed at creation. */
export const workspaceAggregate = catalogAggregate<WorkspaceFields>({
  kind: 'workspace',
  events: workspaceEventTypes,
  immutable: ['workspaceProvider'],
  uniqueKeys: (f) => [
    {
      key: `workspace-name:${f.integrationId}:${f.name.toLowerCase()}`,
      field: 'name',
      message: `a workspace named "${f.name}" already exists for integration ${f.integrationId}`,
    },
  ],
  references: (f) => [{ kind: 'integration', id: f.integrationId, field: 'integrationId' }],
});
