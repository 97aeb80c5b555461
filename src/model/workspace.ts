import { z } from 'zod';
import type { EntityDeclaration } from './entity.js';
import { entityName, httpUrl, integrationIdField, nonEmpty, ownerIdField } from './inputs.js';

/** Where a workspace's repository is hosted. */
export const WORKSPACE_PROVIDERS = ['github', 'bitbucket', 'azure_devops'] as const;

/** Workspace configuration (docs/contract.md §2); unknown keys are refused. */
export const workspaceConfigurationSchema = z.strictObject({
  url: httpUrl.max(2000, 'at most 2000 characters'),
  defaultBranch: nonEmpty(255).default('main'),
});

/** Workspaces: repositories where resources are delivered as code (docs/contract.md §2). */
export const workspaceEntity = {
  name: 'Workspace',
  kind: 'workspace',
  plural: 'workspaces',
  table: 'workspaces',
  description: 'A repository where resources are delivered as code.',
  fields: {
    name: {
      kind: 'text',
      description: 'Name, unique per integration.',
      input: entityName,
      required: true,
      search: true,
      unique: {
        key: 'workspace-name',
        caseInsensitive: true,
        scope: 'integrationId',
        message: (name: string, values: Readonly<Record<string, unknown>>) =>
          `a workspace named "${name}" already exists for integration ${String(values.integrationId)}`,
      },
    },
    workspaceProvider: {
      kind: 'enum',
      values: WORKSPACE_PROVIDERS,
      description: '`github`, `bitbucket` or `azure_devops`.',
      required: true,
      immutable: true,
    },
    configuration: {
      kind: 'json',
      description: '`url`, `defaultBranch` and other settings.',
      // An absent configuration is parsed as {} so the answer names the missing configuration.url.
      input: z.preprocess((value) => (value === undefined ? {} : value), workspaceConfigurationSchema),
      stored: z.object({ url: z.string(), defaultBranch: z.string() }),
      required: true,
    },
    integrationId: {
      ...integrationIdField('The git integration that reaches the workspace.', { type: 'git', providerField: 'workspaceProvider' }),
      required: true,
    },
    ownerId: ownerIdField(2),
  },
} as const satisfies EntityDeclaration;
