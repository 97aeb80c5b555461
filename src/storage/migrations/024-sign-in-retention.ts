/**
 * Bounded growth of sign-in data (src/auth/retention.ts): indexes for pruning ended or expired
 * sessions and old sign-in audit entries, and how far the `signin-<day>` streams have been truncated.
 */
export const sql = `
CREATE INDEX sessions_expires_at_idx ON sessions (expires_at);
CREATE INDEX sessions_ended_at_idx ON sessions (ended_at) WHERE ended_at IS NOT NULL;
CREATE INDEX audit_log_entity_type_at_idx ON audit_log (entity_type, at);
CREATE TABLE retention_marks (
  name text PRIMARY KEY,
  through date NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
`;
