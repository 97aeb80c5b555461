import { catalogCommonColumnsSql, catalogCommonIndexesSql } from '../../projections/catalog-projection.js';

/** Workspaces read model. */
export const sql = `
CREATE TABLE workspaces (
  ${catalogCommonColumnsSql},
  name text NOT NULL,
  workspace_provider text NOT NULL,
  configuration jsonb NOT NULL DEFAULT '{}',
  integration_id uuid NOT NULL
);
${catalogCommonIndexesSql('workspaces')}
CREATE INDEX workspaces_creator_id_idx ON workspaces (creator_id) WHERE deleted_at IS NULL;
CREATE INDEX workspaces_name_idx ON workspaces (name, id) WHERE deleted_at IS NULL;
CREATE INDEX workspaces_provider_idx ON workspaces (workspace_provider, id) WHERE deleted_at IS NULL;
CREATE INDEX workspaces_integration_id_idx ON workspaces (integration_id, id) WHERE deleted_at IS NULL;
`;
