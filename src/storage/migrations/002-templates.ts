/**
 * Template read model: one column per field, link tables for the two lists, indexes for every
 * filter and sort the list engine offers. Deleted templates keep a tombstone row (deleted_at) so a
 * replay stays idempotent; every read filters on deleted_at IS NULL.
 */
export const sql = `
CREATE TABLE templates (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  template text NOT NULL,
  description text NOT NULL DEFAULT '',
  labels text[] NOT NULL DEFAULT '{}',
  abstract boolean NOT NULL DEFAULT false,
  cloud_resource_types text[] NOT NULL DEFAULT '{}',
  configuration jsonb NOT NULL DEFAULT '{}',
  status text NOT NULL DEFAULT 'enabled',
  creator_id uuid,
  revision integer NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz
);
CREATE INDEX templates_created_at_idx ON templates (created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX templates_updated_at_idx ON templates (updated_at, id) WHERE deleted_at IS NULL;
CREATE INDEX templates_name_idx ON templates (name, id) WHERE deleted_at IS NULL;
CREATE INDEX templates_lower_name_idx ON templates (lower(name)) WHERE deleted_at IS NULL;
CREATE INDEX templates_template_idx ON templates (template) WHERE deleted_at IS NULL;
CREATE INDEX templates_status_idx ON templates (status) WHERE deleted_at IS NULL;
CREATE INDEX templates_creator_idx ON templates (creator_id) WHERE deleted_at IS NULL;
CREATE INDEX templates_labels_idx ON templates USING gin (labels);

CREATE TABLE template_executors (
  template_id uuid NOT NULL,
  executor_id uuid NOT NULL,
  ordinal integer NOT NULL,
  PRIMARY KEY (template_id, executor_id)
);
CREATE INDEX template_executors_executor_idx ON template_executors (executor_id);

CREATE TABLE template_parents (
  template_id uuid NOT NULL,
  parent_id uuid NOT NULL,
  ordinal integer NOT NULL,
  PRIMARY KEY (template_id, parent_id)
);
CREATE INDEX template_parents_parent_idx ON template_parents (parent_id);
`;
