/**
 * Resources read model: `status`/`state` are the lifecycle position; sensitive variable values are
 * stored masked. Link tables hold the integration, secret and parent lists; `resource_parents` read
 * backwards gives a resource's children.
 */
export const sql = `
CREATE TABLE resources (
  id uuid PRIMARY KEY,
  description text NOT NULL DEFAULT '',
  labels text[] NOT NULL DEFAULT '{}',
  status text NOT NULL DEFAULT 'enabled',
  creator_id uuid,
  revision integer NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz,
  name text NOT NULL,
  abstract boolean NOT NULL DEFAULT false,
  variables jsonb NOT NULL DEFAULT '[]',
  outputs jsonb,
  storage_path text,
  template_id uuid NOT NULL,
  source_code_version_id uuid,
  storage_id uuid,
  workspace_id uuid,
  state text NOT NULL,
  last_error text
);

CREATE INDEX resources_created_at_idx ON resources (created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX resources_updated_at_idx ON resources (updated_at, id) WHERE deleted_at IS NULL;
CREATE INDEX resources_status_idx ON resources (status) WHERE deleted_at IS NULL;
CREATE INDEX resources_labels_idx ON resources USING gin (labels);
CREATE INDEX resources_name_idx ON resources (name, id) WHERE deleted_at IS NULL;
CREATE INDEX resources_template_idx ON resources (template_id) WHERE deleted_at IS NULL;
CREATE INDEX resources_state_idx ON resources (state, status) WHERE deleted_at IS NULL;
CREATE INDEX resources_creator_idx ON resources (creator_id) WHERE deleted_at IS NULL;
CREATE INDEX resources_source_code_version_idx ON resources (source_code_version_id) WHERE deleted_at IS NULL;
CREATE INDEX resources_storage_idx ON resources (storage_id) WHERE deleted_at IS NULL;
CREATE INDEX resources_workspace_idx ON resources (workspace_id) WHERE deleted_at IS NULL;

CREATE TABLE resource_integrations (
  resource_id uuid NOT NULL,
  integration_id uuid NOT NULL,
  ordinal integer NOT NULL,
  PRIMARY KEY (resource_id, integration_id)
);
CREATE INDEX resource_integrations_integration_idx ON resource_integrations (integration_id);

CREATE TABLE resource_secrets (
  resource_id uuid NOT NULL,
  secret_id uuid NOT NULL,
  ordinal integer NOT NULL,
  PRIMARY KEY (resource_id, secret_id)
);
CREATE INDEX resource_secrets_secret_idx ON resource_secrets (secret_id);

CREATE TABLE resource_parents (
  resource_id uuid NOT NULL,
  parent_id uuid NOT NULL,
  ordinal integer NOT NULL,
  PRIMARY KEY (resource_id, parent_id)
);
CREATE INDEX resource_parents_parent_idx ON resource_parents (parent_id);
`;
