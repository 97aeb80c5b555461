/**
 * Source code versions read model. `template_id` is indexed for the template's list of its versions;
 * (source_code_id, identifier) serves both the per-source-code list and its sort by identifier.
 */
export const sql = `
CREATE TABLE source_code_versions (
  id uuid PRIMARY KEY,
  description text NOT NULL DEFAULT '',
  labels text[] NOT NULL DEFAULT '{}',
  status text NOT NULL DEFAULT 'enabled',
  creator_id uuid,
  revision integer NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz,
  source_code_version text,
  source_code_branch text,
  source_code_folder text NOT NULL,
  identifier text NOT NULL,
  variables jsonb NOT NULL DEFAULT '[]',
  outputs jsonb NOT NULL DEFAULT '[]',
  lifecycle_state text NOT NULL DEFAULT 'preview',
  template_id uuid NOT NULL,
  source_code_id uuid NOT NULL
);

CREATE INDEX source_code_versions_created_at_idx ON source_code_versions (created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX source_code_versions_updated_at_idx ON source_code_versions (updated_at, id) WHERE deleted_at IS NULL;
CREATE INDEX source_code_versions_status_idx ON source_code_versions (status) WHERE deleted_at IS NULL;
CREATE INDEX source_code_versions_labels_idx ON source_code_versions USING gin (labels);
CREATE INDEX source_code_versions_identifier_idx ON source_code_versions (identifier, id) WHERE deleted_at IS NULL;
CREATE INDEX source_code_versions_source_code_idx ON source_code_versions (source_code_id, identifier, id) WHERE deleted_at IS NULL;
CREATE INDEX source_code_versions_template_idx ON source_code_versions (template_id, id) WHERE deleted_at IS NULL;
CREATE INDEX source_code_versions_lifecycle_idx ON source_code_versions (lifecycle_state, id) WHERE deleted_at IS NULL;
CREATE INDEX source_code_versions_tag_idx ON source_code_versions (source_code_version, id) WHERE deleted_at IS NULL;
CREATE INDEX source_code_versions_branch_idx ON source_code_versions (source_code_branch, id) WHERE deleted_at IS NULL;
CREATE INDEX source_code_versions_folder_idx ON source_code_versions (source_code_folder, id) WHERE deleted_at IS NULL;
CREATE INDEX source_code_versions_creator_idx ON source_code_versions (creator_id, id) WHERE deleted_at IS NULL;
`;
