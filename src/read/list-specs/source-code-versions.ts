import { VERSION_LIFECYCLE_STATES } from '../../events/source-code-version.js';
import type { ListSpec } from '../list-query.js';
import { catalogCommonListFields } from './common.js';

/**
 * The source code versions list (migration 012; every filter and sort has an index). `templateId`
 * is how a template's view finds its versions.
 */
export const sourceCodeVersionListSpec: ListSpec = {
  resource: 'source_code_versions',
  table: 'source_code_versions',
  fields: {
    ...catalogCommonListFields,
    identifier: { column: 'identifier', type: 'text' },
    sourceCodeVersion: { column: 'source_code_version', type: 'text' },
    sourceCodeBranch: { column: 'source_code_branch', type: 'text' },
    sourceCodeFolder: { column: 'source_code_folder', type: 'text' },
    lifecycleState: { column: 'lifecycle_state', type: 'enum', values: VERSION_LIFECYCLE_STATES },
    templateId: { column: 'template_id', type: 'uuid' },
    sourceCodeId: { column: 'source_code_id', type: 'uuid' },
    variables: { column: 'variables', type: 'json' },
    outputs: { column: 'outputs', type: 'json' },
  },
  search: ['identifier', 'description'],
  softDelete: true,
};
