/** The PostgreSQL event store and the projection bookkeeping shared by every read model. */
export const sql = `
CREATE TABLE events (
  global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id uuid NOT NULL UNIQUE,
  stream_id text NOT NULL,
  stream_revision bigint NOT NULL,
  type text NOT NULL,
  data jsonb NOT NULL,
  metadata jsonb NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT events_stream_revision_unique UNIQUE (stream_id, stream_revision)
);

CREATE TABLE projection_checkpoints (
  name text PRIMARY KEY,
  position bigint,
  status text NOT NULL DEFAULT 'running',
  error text,
  failed_event_id uuid,
  updated_at timestamptz NOT NULL DEFAULT now()
);
`;
