import { catalogCommonColumnsSql, catalogCommonIndexesSql } from '../../projections/catalog-projection.js';

/** Secrets read model; `configuration` is stored with custom secret values masked. */
export const sql = `
CREATE TABLE secrets (
  ${catalogCommonColumnsSql},
  name text NOT NULL,
  secret_provider text NOT NULL,
  secret_type text NOT NULL DEFAULT 'tofu',
  configuration jsonb NOT NULL DEFAULT '{}',
  integration_id uuid
);
${catalogCommonIndexesSql('secrets')}
CREATE INDEX secrets_creator_id_idx ON secrets (creator_id) WHERE deleted_at IS NULL;
CREATE INDEX secrets_name_idx ON secrets (name, id) WHERE deleted_at IS NULL;
CREATE INDEX secrets_provider_idx ON secrets (secret_provider, id) WHERE deleted_at IS NULL;
CREATE INDEX secrets_type_idx ON secrets (secret_type, id) WHERE deleted_at IS NULL;
CREATE INDEX secrets_integration_id_idx ON secrets (integration_id, id) WHERE deleted_at IS NULL;
`;
