import { z } from 'zod';
import { catalogEvents } from '../commands/catalog-entity.js';

export const WORKSPACE_PROVIDERS = ['github', 'bitbucket', 'azure_devops'] as const;

export const workspaceFields = z.object({
  name: z.string(),
  workspaceProvider: z.enum(WORKSPACE_PROVIDERS),
  configuration: z.object({ url: z.string(), defaultBranch: z.string() }),
  integrationId: z.string(),
  description: z.string(),
  labels: z.array(z.string()),
});

export type WorkspaceFields = z.infer<typeof workspaceFields>;

export const workspaceEvents = catalogEvents('Workspace', workspaceFields);
