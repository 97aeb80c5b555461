/** Workspaces read model. */
export const sql = `
CREATE TABLE workspaces (
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
  workspace_provider text NOT NULL,
  configuration jsonb NOT NULL DEFAULT '{}',
  integration_id uuid NOT NULL
);

CREATE INDEX workspaces_created_at_idx ON workspaces (created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX workspaces_updated_at_idx ON workspaces (updated_at, id) WHERE deleted_at IS NULL;
CREATE INDEX workspaces_status_idx ON workspaces (status) WHERE deleted_at IS NULL;
CREATE INDEX workspaces_labels_idx ON workspaces USING gin (labels);
CREATE INDEX workspaces_creator_id_idx ON workspaces (creator_id) WHERE deleted_at IS NULL;
CREATE INDEX workspaces_name_idx ON workspaces (name, id) WHERE deleted_at IS NULL;
CREATE INDEX workspaces_provider_idx ON workspaces (workspace_provider, id) WHERE deleted_at IS NULL;
CREATE INDEX workspaces_integration_id_idx ON workspaces (integration_id, id) WHERE deleted_at IS NULL;
`;
