/** Users and sessions read models. Password hashes stay in the (encrypted) event store only. */
export const sql = `
CREATE TABLE users (
  id uuid PRIMARY KEY,
  kind text NOT NULL,
  identifier text NOT NULL,
  email text,
  display_name text,
  provider text,
  subject text,
  roles text[] NOT NULL DEFAULT '{}',
  grants text[] NOT NULL DEFAULT '{}',
  deactivated boolean NOT NULL DEFAULT false,
  sessions_revoked_before timestamptz,
  creator_id uuid,
  revision integer NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX users_identifier_idx ON users (lower(identifier));
CREATE INDEX users_provider_subject_idx ON users (provider, subject);
CREATE INDEX users_created_at_idx ON users (created_at, id);
CREATE INDEX users_roles_idx ON users USING gin (roles);

CREATE TABLE sessions (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL,
  method text NOT NULL,
  provider text,
  expires_at timestamptz NOT NULL,
  ended_at timestamptz,
  end_reason text,
  revision integer NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX sessions_user_idx ON sessions (user_id);
`;
