import { LIFECYCLE_STATES, LIFECYCLE_STATUSES } from '../../commands/lifecycle.js';
import { EXECUTOR_RUNTIMES } from '../../events/executor.js';
import type { ListSpec } from '../list-query.js';

/** The executors list (migration 014; every filter has an index, the link filters their link tables' reverse index). */
export const executorListSpec: ListSpec = {
  resource: 'executors',
  table: 'executors',
  fields: {
    id: { column: 'id', type: 'uuid' },
    name: { column: 'name', type: 'text' },
    runtime: { column: 'runtime', type: 'enum', values: EXECUTOR_RUNTIMES },
    commandArgs: { column: 'command_args', type: 'text' },
    sourceCodeVersion: { column: 'source_code_version', type: 'text' },
    sourceCodeBranch: { column: 'source_code_branch', type: 'text' },
    sourceCodeFolder: { column: 'source_code_folder', type: 'text' },
    storagePath: { column: 'storage_path', type: 'text' },
    sourceCodeId: { column: 'source_code_id', type: 'uuid' },
    storageId: { column: 'storage_id', type: 'uuid' },
    state: { column: 'state', type: 'enum', values: LIFECYCLE_STATES },
    status: { column: 'status', type: 'enum', values: LIFECYCLE_STATUSES },
    description: { column: 'description', type: 'text' },
    labels: { column: 'labels', type: 'text[]' },
    creatorId: { column: 'creator_id', type: 'uuid' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  links: {
    integrationId: { table: 'executor_integrations', ownerColumn: 'executor_id', targetColumn: 'integration_id' },
    secretId: { table: 'executor_secrets', ownerColumn: 'executor_id', targetColumn: 'secret_id' },
  },
  search: ['name', 'description'],
  softDelete: true,
};
