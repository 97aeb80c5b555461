import { catalogCommonColumnsSql, catalogCommonIndexesSql } from '../../projections/catalog-projection.js';

/**
 * Source codes read model. `identifier` always equals `source_code_url`, so its index also serves
 * the `sourceCodeUrl` filter and sort (the list spec maps both to it).
 */
export const sql = `
CREATE TABLE source_codes (
  ${catalogCommonColumnsSql},
  source_code_url text NOT NULL,
  identifier text NOT NULL,
  source_code_provider text NOT NULL,
  source_code_language text NOT NULL DEFAULT 'opentofu',
  git_tags text[] NOT NULL DEFAULT '{}',
  git_branches text[] NOT NULL DEFAULT '{}',
  integration_id uuid
);
${catalogCommonIndexesSql('source_codes')}
CREATE INDEX source_codes_identifier_idx ON source_codes (identifier, id) WHERE deleted_at IS NULL;
CREATE INDEX source_codes_provider_idx ON source_codes (source_code_provider, id) WHERE deleted_at IS NULL;
CREATE INDEX source_codes_language_idx ON source_codes (source_code_language, id) WHERE deleted_at IS NULL;
CREATE INDEX source_codes_integration_idx ON source_codes (integration_id, id) WHERE deleted_at IS NULL;
CREATE INDEX source_codes_creator_idx ON source_codes (creator_id, id) WHERE deleted_at IS NULL;
CREATE INDEX source_codes_git_tags_idx ON source_codes USING gin (git_tags);
CREATE INDEX source_codes_git_branches_idx ON source_codes USING gin (git_branches);
`;
