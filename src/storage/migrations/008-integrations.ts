import { catalogCommonColumnsSql, catalogCommonIndexesSql } from '../../projections/catalog-projection.js';

/** Integrations read model; `configuration` is stored with secret values masked. */
export const sql = `
CREATE TABLE integrations (
  ${catalogCommonColumnsSql},
  name text NOT NULL,
  integration_type text NOT NULL,
  integration_provider text NOT NULL,
  configuration jsonb NOT NULL DEFAULT '{}'
);
${catalogCommonIndexesSql('integrations')}
CREATE INDEX integrations_name_idx ON integrations (name, id) WHERE deleted_at IS NULL;
CREATE INDEX integrations_type_idx ON integrations (integration_type, integration_provider) WHERE deleted_at IS NULL;
`;
