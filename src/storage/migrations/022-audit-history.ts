/**
 * The audit log in words (docs/contract.md §7): each entry's verb (`approved`, `created`, …), the
 * entity's name, the fields it changed (`diff`: `[{field, before?, after?}]`) and the reason the
 * event gives. `audit_entities` is the audit projection's memory of each entity's fields (redacted,
 * like the log) as of its last event, so the next event can say what a field was before.
 *
 * Existing entries have none of this, so the audit projection starts over: the log is emptied and
 * its checkpoint dropped, and the first start after this migration replays every event into it
 * (the log fills up while the service answers; `/readyz` shows the lag until it has caught up).
 */
export const sql = `
ALTER TABLE audit_log
  ADD COLUMN verb text NOT NULL DEFAULT '',
  ADD COLUMN entity_name text,
  ADD COLUMN diff jsonb NOT NULL DEFAULT '[]',
  ADD COLUMN reason text;
CREATE INDEX audit_log_verb_idx ON audit_log (verb, at, id);
CREATE TABLE audit_entities (
  entity_type text NOT NULL,
  entity_id text NOT NULL,
  name text,
  fields jsonb NOT NULL,
  position bigint NOT NULL,
  PRIMARY KEY (entity_type, entity_id)
);
TRUNCATE audit_log;
DELETE FROM projection_checkpoints WHERE name = 'audit_log';
`;
