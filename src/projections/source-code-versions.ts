import { sourceCodeVersionEventTypes, sourceCodeVersionFields } from '../events/source-code-version.js';
import { catalogProjection } from './catalog-projection.js';

/** The source_code_versions read model (migration 012). */
export const sourceCodeVersionsProjection = catalogProjection({
  table: 'source_code_versions',
  kind: 'source_code_version',
  events: sourceCodeVersionEventTypes,
  fields: sourceCodeVersionFields,
  columns: {
    source_code_version: 'text',
    source_code_branch: 'text',
    source_code_folder: 'text',
    identifier: 'text',
    variables: 'jsonb',
    outputs: 'jsonb',
    lifecycle_state: 'text',
    template_id: 'uuid',
    source_code_id: 'uuid',
  },
});
