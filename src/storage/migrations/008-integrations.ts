/** Integrations read model; `configuration` is stored with secret values masked. */
export const sql = `
CREATE TABLE integrations (
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
  integration_type text NOT NULL,
  integration_provider text NOT NULL,
  configuration jsonb NOT NULL DEFAULT '{}'
);

CREATE INDEX integrations_created_at_idx ON integrations (created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX integrations_updated_at_idx ON integrations (updated_at, id) WHERE deleted_at IS NULL;
CREATE INDEX integrations_status_idx ON integrations (status) WHERE deleted_at IS NULL;
CREATE INDEX integrations_labels_idx ON integrations USING gin (labels);
CREATE INDEX integrations_name_idx ON integrations (name, id) WHERE deleted_at IS NULL;
CREATE INDEX integrations_type_idx ON integrations (integration_type, integration_provider) WHERE deleted_at IS NULL;
`;
