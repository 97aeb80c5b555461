import { catalogCommonColumnsSql, catalogCommonIndexesSql } from '../../projections/catalog-projection.js';

/** Storages read model: `status` is the lifecycle status, `state` the lifecycle state. */
export const sql = `
CREATE TABLE storages (
  ${catalogCommonColumnsSql},
  name text NOT NULL,
  storage_provider text NOT NULL,
  storage_type text NOT NULL,
  configuration jsonb NOT NULL DEFAULT '{}',
  integration_id uuid NOT NULL,
  state text NOT NULL,
  last_error text
);
${catalogCommonIndexesSql('storages')}
CREATE INDEX storages_name_idx ON storages (name, id) WHERE deleted_at IS NULL;
CREATE INDEX storages_provider_idx ON storages (storage_provider) WHERE deleted_at IS NULL;
CREATE INDEX storages_integration_idx ON storages (integration_id) WHERE deleted_at IS NULL;
CREATE INDEX storages_state_idx ON storages (state, status) WHERE deleted_at IS NULL;
`;
