import { catalogCommonColumnsSql, catalogCommonIndexesSql } from '../../projections/catalog-projection.js';

/**
 * Executors read model: `status` is the lifecycle status, `state` the lifecycle state; the
 * integration and secret lists live in ordered link tables, indexed both ways for the link filters.
 */
export const sql = `
CREATE TABLE executors (
  ${catalogCommonColumnsSql},
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
${catalogCommonIndexesSql('executors')}
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
