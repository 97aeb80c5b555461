import { executorEventTypes, executorFields } from '../events/executor.js';
import type { ReadLink } from './catalog-projection.js';
import { catalogProjection } from './catalog-projection.js';

/** The executors' two ordered lists (migration 014), shared by the projection and the reader. */
export const executorLinks: readonly ReadLink[] = [
  { table: 'executor_integrations', ownerColumn: 'executor_id', targetColumn: 'integration_id', field: 'integration_ids' },
  { table: 'executor_secrets', ownerColumn: 'executor_id', targetColumn: 'secret_id', field: 'secret_ids' },
];

/** The executors read model: one row per executor plus its integration and secret link tables. */
export const executorsProjection = catalogProjection({
  table: 'executors',
  kind: 'executor',
  events: executorEventTypes,
  fields: executorFields,
  lifecycle: true,
  columns: {
    name: 'text',
    runtime: 'text',
    command_args: 'text',
    source_code_version: 'text',
    source_code_branch: 'text',
    source_code_folder: 'text',
    storage_path: 'text',
    source_code_id: 'uuid',
    storage_id: 'uuid',
    state: 'text',
    last_error: 'text',
  },
  links: executorLinks,
});
