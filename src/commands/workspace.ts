import { workspaceEventTypes, type WorkspaceFields } from '../events/workspace.js';
import { workspaceEntity } from '../model/workspace.js';
import { catalogAggregate, declaredRules } from './catalog-entity.js';

/** Workspaces: a name is unique within its integration (case-insensitive); the provider is fixed at creation. */
export const workspaceAggregate = catalogAggregate<WorkspaceFields>({ ...declaredRules(workspaceEntity), events: workspaceEventTypes });
