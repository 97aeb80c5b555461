import { workspaceEventTypes, workspaceFields } from '../events/workspace.js';
import { workspaceEntity } from '../model/workspace.js';
import { declaredProjection } from './catalog-projection.js';

/** The workspaces read model: columns, link tables and masking from the declaration. */
export const workspacesProjection = declaredProjection(workspaceEntity, workspaceEventTypes, workspaceFields);
