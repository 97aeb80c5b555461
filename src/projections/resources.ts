import { resourceEventTypes, resourceFields } from '../events/resource.js';
import type { ReadLink } from './catalog-projection.js';
import { REDACTED } from '../events/secret-fields.js';
import { catalogProjection } from './catalog-projection.js';

/** The link tables of resources, shared by the projection and the reader. */
export const RESOURCE_LINKS = [
  { table: 'resource_integrations', ownerColumn: 'resource_id', targetColumn: 'integration_id', field: 'integration_ids' },
  { table: 'resource_secrets', ownerColumn: 'resource_id', targetColumn: 'secret_id', field: 'secret_ids' },
  { table: 'resource_parents', ownerColumn: 'resource_id', targetColumn: 'parent_id', field: 'parent_ids' },
] as const satisfies readonly ReadLink[];

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Sensitive variable values are write-only: the read model never holds them in clear. */
export function maskSensitiveVariables(fields: Record<string, unknown>): Record<string, unknown> {
  const variables: unknown = fields.variables;
  if (!Array.isArray(variables)) return fields;
  const masked = (variables as unknown[]).map((v) => (isRecord(v) && v.sensitive === true && v.value !== null && v.value !== undefined ? { ...v, value: REDACTED } : v));
  return { ...fields, variables: masked };
}

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
