/**
 * Source codes read model. `identifier` always equals `source_code_url`, so its index also serves
 * the `sourceCodeUrl` filter and sort (the list spec maps both to it).
 */
export const sql = `
CREATE TABLE source_codes (
  id uuid PRIMARY KEY,
  description text NOT NULL DEFAULT '',
  labels text[] NOT NULL DEFAULT '{}',
  status text NOT NULL DEFAULT 'enabled',
  creator_id uuid,
  revision integer NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz,
  source_code_url text NOT NULL,
  identifier text NOT NULL,
  source_code_provider text NOT NULL,
  source_code_language text NOT NULL DEFAULT 'opentofu',
  git_tags text[] NOT NULL DEFAULT '{}',
  git_branches text[] NOT NULL DEFAULT '{}',
  integration_id uuid
);

CREATE INDEX source_codes_created_at_idx ON source_codes (created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX source_codes_updated_at_idx ON source_codes (updated_at, id) WHERE deleted_at IS NULL;
CREATE INDEX source_codes_status_idx ON source_codes (status) WHERE deleted_at IS NULL;
CREATE INDEX source_codes_labels_idx ON source_codes USING gin (labels);
CREATE INDEX source_codes_identifier_idx ON source_codes (identifier, id) WHERE deleted_at IS NULL;
CREATE INDEX source_codes_provider_idx ON source_codes (source_code_provider, id) WHERE deleted_at IS NULL;
CREATE INDEX source_codes_language_idx ON source_codes (source_code_language, id) WHERE deleted_at IS NULL;
CREATE INDEX source_codes_integration_idx ON source_codes (integration_id, id) WHERE deleted_at IS NULL;
CREATE INDEX source_codes_creator_idx ON source_codes (creator_id, id) WHERE deleted_at IS NULL;
CREATE INDEX source_codes_git_tags_idx ON source_codes USING gin (git_tags);
CREATE INDEX source_codes_git_branches_idx ON source_codes USING gin (git_branches);
`;
