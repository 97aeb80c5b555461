import { RESOURCE_SECRET_PATHS, resourceEventTypes, resourceFields } from '../events/resource.js';
import type { ReadLink } from './catalog-projection.js';
import { redactSecrets } from '../events/secret-fields.js';
import { catalogProjection } from './catalog-projection.js';

/** The link tables of resources, shared by the projection and the reader. */
export const RESOURCE_LINKS = [
  { table: 'resource_integrations', ownerColumn: 'resource_id', targetColumn: 'integration_id', field: 'integration_ids' },
  { table: 'resource_secrets', ownerColumn: 'resource_id', targetColumn: 'secret_id', field: 'secret_ids' },
  { table: 'resource_parents', ownerColumn: 'resource_id', targetColumn: 'parent_id', field: 'parent_ids' },
] as const satisfies readonly ReadLink[];

/** Sensitive variable values are write-only: the read model never holds them in clear. */
export const maskSensitiveVariables = (fields: Record<string, unknown>): Record<string, unknown> =>
  redactSecrets(fields, RESOURCE_SECRET_PATHS, { when: (variable) => variable.sensitive === true });

/** The resources read model. */
export const resourcesProjection = catalogProjection({
  table: 'resources',
  kind: 'resource',
  events: resourceEventTypes,
  fields: resourceFields,
  lifecycle: true,
  columns: {
    name: 'text',
    abstract: 'boolean',
    variables: 'jsonb',
    outputs: 'jsonb',
    storage_path: 'text',
    template_id: 'uuid',
    source_code_version_id: 'uuid',
    storage_id: 'uuid',
    workspace_id: 'uuid',
    state: 'text',
    last_error: 'text',
  },
  links: RESOURCE_LINKS,
  mask: maskSensitiveVariables,
});
