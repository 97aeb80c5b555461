/**
 * Runs (docs/contract.md §2, "Runs"): `runs` is a read model of the resources' lifecycle events (one
 * row per execute, id = that event's id); the run logs are not events: `run_log_chunks` holds what
 * runners append (secrets masked, bounded per run), `run_log_heads` one row per run with the bytes
 * stored so far (locked by each append) and when it last grew (retention deletes by that).
 */
export const sql = `
CREATE TABLE runs (
  id uuid PRIMARY KEY,
  resource_id uuid NOT NULL,
  action text NOT NULL,
  status text NOT NULL,
  actor_id uuid,
  queued_at timestamptz NOT NULL,
  started_at timestamptz,
  finished_at timestamptz,
  error text,
  outputs jsonb,
  queued_revision integer NOT NULL,
  revision integer NOT NULL
);
CREATE INDEX runs_resource_idx ON runs (resource_id, queued_revision DESC);
CREATE INDEX runs_queued_at_idx ON runs (queued_at, id);
CREATE INDEX runs_status_idx ON runs (status);

CREATE TABLE run_log_heads (
  run_id uuid PRIMARY KEY,
  resource_id uuid NOT NULL,
  bytes bigint NOT NULL DEFAULT 0,
  chunks integer NOT NULL DEFAULT 0,
  truncated boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL
);
CREATE INDEX run_log_heads_updated_at_idx ON run_log_heads (updated_at);

CREATE TABLE run_log_chunks (
  run_id uuid NOT NULL,
  seq integer NOT NULL,
  content text NOT NULL,
  bytes integer NOT NULL,
  at timestamptz NOT NULL,
  PRIMARY KEY (run_id, seq)
);
`;
