/**
 * Teams, owners and grants per entity (docs/contract.md §6, ownership). Every catalog table gains
 * `owner_id` (null for what existed before: nobody owns it, and it behaves as it did); `entity_grants`
 * holds the access streams' grants; `users.external_groups` the groups the user's last sign-in reported.
 */
const CATALOG_TABLES = [
  'templates',
  'integrations',
  'secrets',
  'workspaces',
  'source_codes',
  'source_code_versions',
  'storages',
  'executors',
  'resources',
];

const owners = CATALOG_TABLES.map(
  (table) => `ALTER TABLE ${table} ADD COLUMN owner_id uuid;
CREATE INDEX ${table}_owner_id_idx ON ${table} (owner_id, id) WHERE deleted_at IS NULL;`,
).join('\n');

const link = (table: string) => `CREATE TABLE ${table} (
  team_id uuid NOT NULL,
  user_id uuid NOT NULL,
  ordinal integer NOT NULL,
  PRIMARY KEY (team_id, user_id)
);
CREATE INDEX ${table}_user_idx ON ${table} (user_id);`;

/** The migration's statements. */
export const sql = `
CREATE TABLE teams (
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
  group_references text[] NOT NULL DEFAULT '{}'
);
CREATE INDEX teams_created_at_idx ON teams (created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX teams_updated_at_idx ON teams (updated_at, id) WHERE deleted_at IS NULL;
CREATE INDEX teams_status_idx ON teams (status) WHERE deleted_at IS NULL;
CREATE INDEX teams_labels_idx ON teams USING gin (labels);
CREATE INDEX teams_creator_id_idx ON teams (creator_id) WHERE deleted_at IS NULL;
CREATE INDEX teams_name_idx ON teams (name, id) WHERE deleted_at IS NULL;
CREATE INDEX teams_group_references_idx ON teams USING gin (group_references);
${link('team_members')}
${link('team_leads')}

${owners}

CREATE TABLE entity_grants (
  entity_id uuid NOT NULL,
  entity_kind text NOT NULL,
  subject_type text NOT NULL,
  subject_id uuid NOT NULL,
  level text NOT NULL,
  granted_at timestamptz NOT NULL,
  PRIMARY KEY (entity_id, subject_type, subject_id)
);
CREATE INDEX entity_grants_subject_idx ON entity_grants (subject_type, subject_id);

ALTER TABLE users ADD COLUMN external_groups text[] NOT NULL DEFAULT '{}';
`;
