/**
 * Answers of writes sent with an `Idempotency-Key`, per caller and key, kept 24 hours (src/edge/idempotency.ts).
 * `status` is null while the first request runs; `body` is null when the answer carried a secret.
 */
export const sql = `
CREATE TABLE idempotency_keys (
  caller text NOT NULL,
  key text NOT NULL,
  fingerprint text NOT NULL,
  correlation_id text NOT NULL,
  method text NOT NULL,
  path text NOT NULL,
  status integer,
  headers jsonb NOT NULL DEFAULT '{}',
  body text,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (caller, key)
);
CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);
`;
