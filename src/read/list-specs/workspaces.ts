import { workspaceEntity } from '../../model/workspace.js';
import { declaredListSpec } from './common.js';

/** The workspaces list: what clients may filter, sort and search on, from the declaration. */
export const workspaceListSpec = declaredListSpec(workspaceEntity);
