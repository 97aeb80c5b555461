import { EXECUTOR_RUNTIMES } from '../../events/executor.js';
import type { ListSpec } from '../list-query.js';
import { lifecycleListFields } from './common.js';

/** The executors list (migration 014; every filter has an index, the link filters their link tables' reverse index). */
export const executorListSpec: ListSpec = {
  resource: 'executors',
  table: 'executors',
  fields: {
    ...lifecycleListFields,
    name: { column: 'name', type: 'text' },
    runtime: { column: 'runtime', type: 'enum', values: EXECUTOR_RUNTIMES },
    commandArgs: { column: 'command_args', type: 'text' },
    sourceCodeVersion: { column: 'source_code_version', type: 'text' },
    sourceCodeBranch: { column: 'source_code_branch', type: 'text' },
    sourceCodeFolder: { column: 'source_code_folder', type: 'text' },
    storagePath: { column: 'storage_path', type: 'text' },
    sourceCodeId: { column: 'source_code_id', type: 'uuid' },
    storageId: { column: 'storage_id', type: 'uuid' },
  },
  links: {
    integrationId: { table: 'executor_integrations', ownerColumn: 'executor_id', targetColumn: 'integration_id' },
    secretId: { table: 'executor_secrets', ownerColumn: 'executor_id', targetColumn: 'secret_id' },
  },
  search: ['name', 'description'],
  softDelete: true,
};
