/** Storages read model: `status` is the lifecycle status, `state` the lifecycle state. */
export const sql = `
CREATE TABLE storages (
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
  storage_provider text NOT NULL,
  storage_type text NOT NULL,
  configuration jsonb NOT NULL DEFAULT '{}',
  integration_id uuid NOT NULL,
  state text NOT NULL,
  last_error text
);

CREATE INDEX storages_created_at_idx ON storages (created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX storages_updated_at_idx ON storages (updated_at, id) WHERE deleted_at IS NULL;
CREATE INDEX storages_status_idx ON storages (status) WHERE deleted_at IS NULL;
CREATE INDEX storages_labels_idx ON storages USING gin (labels);
CREATE INDEX storages_name_idx ON storages (name, id) WHERE deleted_at IS NULL;
CREATE INDEX storages_provider_idx ON storages (storage_provider) WHERE deleted_at IS NULL;
CREATE INDEX storages_integration_idx ON storages (integration_id) WHERE deleted_at IS NULL;
CREATE INDEX storages_state_idx ON storages (state, status) WHERE deleted_at IS NULL;
`;
