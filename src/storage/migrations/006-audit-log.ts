/**
 * The audit log read model (docs/contract.md §7): one row per domain event, keyed by the event id so replays
 * insert nothing twice. `changes` holds the event data with every secret path redacted; the table
 * never sees a secret. Indexes cover the list's filters, each ending in the default sort (at, id) so
 * a filtered page is read in order instead of sorted.
 */
export const sql = `
CREATE TABLE audit_log (
  id uuid PRIMARY KEY,
  position bigint NOT NULL,
  at timestamptz NOT NULL,
  actor_id uuid,
  action text NOT NULL,
  entity_type text NOT NULL,
  entity_id text,
  changes jsonb NOT NULL DEFAULT '{}',
  correlation_id text NOT NULL,
  causation_id text,
  stream_id text NOT NULL
);
CREATE INDEX audit_log_at_idx ON audit_log (at, id);
CREATE INDEX audit_log_position_idx ON audit_log (position, id);
CREATE INDEX audit_log_action_idx ON audit_log (action, at, id);
CREATE INDEX audit_log_entity_idx ON audit_log (entity_type, entity_id, at, id);
CREATE INDEX audit_log_actor_idx ON audit_log (actor_id, at, id);
CREATE INDEX audit_log_correlation_idx ON audit_log (correlation_id, at, id);
`;
