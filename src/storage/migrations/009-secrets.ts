/** Secrets read model; `configuration` is stored with custom secret values masked. */
export const sql = `
CREATE TABLE secrets (
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
  secret_provider text NOT NULL,
  secret_type text NOT NULL DEFAULT 'tofu',
  configuration jsonb NOT NULL DEFAULT '{}',
  integration_id uuid
);

CREATE INDEX secrets_created_at_idx ON secrets (created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX secrets_updated_at_idx ON secrets (updated_at, id) WHERE deleted_at IS NULL;
CREATE INDEX secrets_status_idx ON secrets (status) WHERE deleted_at IS NULL;
CREATE INDEX secrets_labels_idx ON secrets USING gin (labels);
CREATE INDEX secrets_creator_id_idx ON secrets (creator_id) WHERE deleted_at IS NULL;
CREATE INDEX secrets_name_idx ON secrets (name, id) WHERE deleted_at IS NULL;
CREATE INDEX secrets_provider_idx ON secrets (secret_provider, id) WHERE deleted_at IS NULL;
CREATE INDEX secrets_type_idx ON secrets (secret_type, id) WHERE deleted_at IS NULL;
CREATE INDEX secrets_integration_id_idx ON secrets (integration_id, id) WHERE deleted_at IS NULL;
`;
