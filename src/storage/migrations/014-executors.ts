/**
 * Executors read model: `status` is the lifecycle status, `state` the lifecycle state; the
 * integration and secret lists live in ordered link tables, indexed both ways for the link filters.
 */
export const sql = `
CREATE TABLE executors (
  id uuid PRIMARY KEY,
  description text NOT NULL DEFAULT '',
  labels text[] NOT NULL DEFAULT '{}',
  status text NOT NULL DEFAULT 'enabled',
  creator_id uuid,
  revision integer NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz,
  name text NOT NULL,
  runtime text NOT NULL,
  command_args text NOT NULL DEFAULT '',
  source_code_version text,
  source_code_branch text,
  source_code_folder text NOT NULL DEFAULT '.',
  storage_path text NOT NULL DEFAULT '',
  source_code_id uuid NOT NULL,
  storage_id uuid,
  state text NOT NULL,
  last_error text
);

CREATE INDEX executors_created_at_idx ON executors (created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX executors_updated_at_idx ON executors (updated_at, id) WHERE deleted_at IS NULL;
CREATE INDEX executors_status_idx ON executors (status) WHERE deleted_at IS NULL;
CREATE INDEX executors_labels_idx ON executors USING gin (labels);
CREATE INDEX executors_name_idx ON executors (name, id) WHERE deleted_at IS NULL;
CREATE INDEX executors_lower_name_idx ON executors (lower(name)) WHERE deleted_at IS NULL;
CREATE INDEX executors_runtime_idx ON executors (runtime) WHERE deleted_at IS NULL;
CREATE INDEX executors_source_code_idx ON executors (source_code_id) WHERE deleted_at IS NULL;
CREATE INDEX executors_storage_idx ON executors (storage_id) WHERE deleted_at IS NULL;
CREATE INDEX executors_state_idx ON executors (state, status) WHERE deleted_at IS NULL;

CREATE TABLE executor_integrations (
  executor_id uuid NOT NULL,
  integration_id uuid NOT NULL,
  ordinal integer NOT NULL,
  PRIMARY KEY (executor_id, integration_id)
);
CREATE INDEX executor_integrations_integration_idx ON executor_integrations (integration_id);

CREATE TABLE executor_secrets (
  executor_id uuid NOT NULL,
  secret_id uuid NOT NULL,
  ordinal integer NOT NULL,
  PRIMARY KEY (executor_id, secret_id)
);
CREATE INDEX executor_secrets_secret_idx ON executor_secrets (secret_id);
`;
