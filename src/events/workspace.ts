import { z } from 'zod';
import { catalogEvents, type CatalogEventTypes } from './kits.js';
import type { EventOf } from './define.js';

/** Where a workspace's repository is hosted. */
export const WORKSPACE_PROVIDERS = ['github', 'bitbucket', 'azure_devops'] as const;

/** The fields a workspace keeps, as stored in its events. */
export const workspaceFields = z.object({
  name: z.string(),
  workspaceProvider: z.enum(WORKSPACE_PROVIDERS),
  configuration: z.object({ url: z.string(), defaultBranch: z.string() }),
  integrationId: z.string(),
  description: z.string(),
  labels: z.array(z.string()),
});

/** The fields a workspace keeps. */
export type WorkspaceFields = z.infer<typeof workspaceFields>;

/** The Workspace event types, spelled out. */
export const workspaceEventTypes = {
  created: 'WorkspaceCreated',
  updated: 'WorkspaceUpdated',
  enabled: 'WorkspaceEnabled',
  disabled: 'WorkspaceDisabled',
  deleted: 'WorkspaceDeleted',
} as const satisfies CatalogEventTypes<'Workspace'>;

/** The workspace event definitions. */
export const workspaceEvents = catalogEvents(workspaceEventTypes, workspaceFields);

/** Every Workspace event, typed by its literal name. */
export type WorkspaceEvent = EventOf<(typeof workspaceEvents)[number]>;
