import { SOURCE_CODE_LANGUAGES, SOURCE_CODE_PROVIDERS } from '../../events/source-code.js';
import type { ListSpec } from '../list-query.js';
import { catalogCommonListFields } from './common.js';

/** The source codes list (migration 011; every filter and sort has an index). */
export const sourceCodeListSpec: ListSpec = {
  resource: 'source_codes',
  table: 'source_codes',
  fields: {
    ...catalogCommonListFields,
    identifier: { column: 'identifier', type: 'text' },
    // Always equal to identifier: one column's index serves both names.
    sourceCodeUrl: { column: 'identifier', type: 'text' },
    sourceCodeProvider: { column: 'source_code_provider', type: 'enum', values: SOURCE_CODE_PROVIDERS },
    sourceCodeLanguage: { column: 'source_code_language', type: 'enum', values: SOURCE_CODE_LANGUAGES },
    gitTags: { column: 'git_tags', type: 'text[]' },
    gitBranches: { column: 'git_branches', type: 'text[]' },
    integrationId: { column: 'integration_id', type: 'uuid' },
  },
  search: ['identifier', 'description'],
  softDelete: true,
};
