/**
 * Personal access tokens read model. It holds the token's SHA-256 (the authenticator looks tokens up
 * by it), which is acceptable for a hash of a 192-bit random secret: it cannot be turned back into the
 * token. `last_used_at` is operational data written by the authenticator, not by the projection.
 */
export const sql = `
CREATE TABLE personal_access_tokens (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL,
  name text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  last_used_at timestamptz,
  revision integer NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX personal_access_tokens_user_idx ON personal_access_tokens (user_id, created_at DESC, id DESC);
`;
