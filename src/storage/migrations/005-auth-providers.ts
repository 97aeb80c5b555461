/** Auth providers read model. `configuration` holds secrets masked as "********" (never the values). */
export const sql = `
CREATE TABLE auth_providers (
  id uuid PRIMARY KEY,
  key text NOT NULL,
  name text NOT NULL,
  type text NOT NULL,
  description text NOT NULL DEFAULT '',
  enabled boolean NOT NULL,
  configuration jsonb NOT NULL DEFAULT '{}',
  filter_by_domain text[] NOT NULL DEFAULT '{}',
  creator_id uuid,
  revision integer NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz
);
CREATE INDEX auth_providers_key_idx ON auth_providers (key) WHERE deleted_at IS NULL;
CREATE INDEX auth_providers_type_idx ON auth_providers (type) WHERE deleted_at IS NULL;
CREATE INDEX auth_providers_created_at_idx ON auth_providers (created_at, id) WHERE deleted_at IS NULL;
`;
