import { sourceCodeEventTypes, sourceCodeFields } from '../events/source-code.js';
import { catalogProjection } from './catalog-projection.js';

/** The source_codes read model (migration 011). */
export const sourceCodesProjection = catalogProjection({
  table: 'source_codes',
  kind: 'source_code',
  events: sourceCodeEventTypes,
  fields: sourceCodeFields,
  columns: {
    source_code_url: 'text',
    identifier: 'text',
    source_code_provider: 'text',
    source_code_language: 'text',
    git_tags: 'text[]',
    git_branches: 'text[]',
    integration_id: 'uuid',
  },
});
