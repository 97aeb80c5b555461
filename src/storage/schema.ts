import type { ColumnType, Generated } from 'kysely';
import type { EntityDeclaration, StoredValue } from '../model/entity.js';
import type { executorEntity } from '../model/executor.js';
import type { integrationEntity } from '../model/integration.js';
import type { resourceEntity } from '../model/resource.js';
import type { secretEntity } from '../model/secret.js';
import type { sourceCodeVersionEntity } from '../model/source-code-version.js';
import type { sourceCodeEntity } from '../model/source-code.js';
import type { storageEntity } from '../model/storage.js';
import type { templateEntity } from '../model/template.js';
import type { workspaceEntity } from '../model/workspace.js';
import type { teamEntity } from '../model/team.js';

/** `cloudResourceTypes` → `cloud_resource_types`, at the type level (as `columnOf` does at run time). */
type SnakeCase<S extends string> = S extends `${infer H}${infer T}`
  ? `${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}${SnakeCase<T>}`
  : S;

/** The columns every catalog table has (the kit's common fields and bookkeeping). */
export interface CatalogCommonColumns {
  id: string;
  description: string;
  labels: string[];
  status: string;
  creator_id: string | null;
  revision: number;
  created_at: ColumnType<Date, Date | string, Date | string>;
  updated_at: ColumnType<Date, Date | string, Date | string>;
  deleted_at: ColumnType<Date | null, Date | string | null, Date | string | null>;
}

/** A declared field's column type (JSON is written as text and read as an object). */
type DeclaredColumn<F> = F extends { readonly kind: 'json' } ? ColumnType<StoredValue<F>, string, string> : StoredValue<F>;

/** A lifecycle entity's columns beyond its fields (docs/contract.md §3). */
interface LifecycleColumns {
  state: string;
  last_error: string | null;
}

/** The columns the kit adds to a declared entity's own: the lifecycle ones, and `outputs` when its runs report them. */
type KitColumns<E extends EntityDeclaration> = E extends { readonly lifecycle: { readonly outputs: true } }
  ? LifecycleColumns & { outputs: ColumnType<Record<string, unknown> | null, string | null, string | null> }
  : E extends { readonly lifecycle: object }
    ? LifecycleColumns
    : unknown;

/**
 * A declared entity's read table, as Kysely sees it: the common columns, one per value field (a
 * field named like a common one, as resources' `creatorId`, is that column), and the kit's columns.
 */
export type DeclaredTable<E extends EntityDeclaration> = CatalogCommonColumns &
  KitColumns<E> & {
    [
      K in keyof E['fields'] as E['fields'][K] extends { readonly kind: 'idList' }
        ? never
        : K extends 'creatorId'
          ? never
          : SnakeCase<K & string>
    ]: DeclaredColumn<E['fields'][K]>;
  };

/** A link table pairing an owner row with a target row, in the owner's order (`ordinal`). */
export type LinkTable<Owner extends string, Target extends string> = Record<Owner | Target, string> & { ordinal: number };

/** The audit_log read table: one row per event (docs/contract.md §7). */
export interface AuditLogTable {
  id: string;
  position: ColumnType<string, string | number | bigint, string | number | bigint>;
  at: ColumnType<Date, Date | string, Date | string>;
  actor_id: string | null;
  action: string;
  entity_type: string;
  entity_id: string | null;
  changes: ColumnType<Record<string, unknown>, string, string>;
  correlation_id: string;
  causation_id: string | null;
  stream_id: string;
}

/** The personal_access_tokens read table (the token itself is never stored, only its hash). */
export interface PersonalAccessTokensTable {
  id: string;
  user_id: string;
  name: string;
  token_hash: string;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  revoked_at: ColumnType<Date | null, Date | string | null, Date | string | null>;
  last_used_at: ColumnType<Date | null, Date | string | null, Date | string | null>;
  revision: number;
  created_at: ColumnType<Date, Date | string, Date | string>;
  updated_at: ColumnType<Date, Date | string, Date | string>;
}

/** The projection_checkpoints table. */
export interface ProjectionCheckpointsTable {
  name: string;
  position: string | null;
  status: Generated<string>;
  error: string | null;
  failed_event_id: string | null;
  updated_at: Generated<Date>;
}

/** The users read table. */
export interface UsersTable {
  id: string;
  kind: 'human' | 'service_account' | 'guest';
  identifier: string;
  email: string | null;
  display_name: string | null;
  provider: string | null;
  subject: string | null;
  roles: string[];
  grants: string[];
  deactivated: boolean;
  external_groups: string[];
  sessions_revoked_before: ColumnType<Date | null, string | null, string | null>;
  creator_id: string | null;
  revision: number;
  created_at: ColumnType<Date, string, string>;
  updated_at: ColumnType<Date, string, string>;
}

/** The grants on single entities (src/projections/entity-grants.ts). */
export interface EntityGrantsTable {
  entity_id: string;
  entity_kind: string;
  subject_type: 'user' | 'team';
  subject_id: string;
  level: 'read' | 'write' | 'admin';
  granted_at: ColumnType<Date, string, string>;
}

/** The sessions read table. */
export interface SessionsTable {
  id: string;
  user_id: string;
  method: string;
  provider: string | null;
  expires_at: ColumnType<Date, string, string>;
  ended_at: ColumnType<Date | null, string | null, string | null>;
  end_reason: string | null;
  revision: number;
  created_at: ColumnType<Date, string, string>;
  updated_at: ColumnType<Date, string, string>;
}

/** The auth_providers read table. */
export interface AuthProvidersTable {
  id: string;
  key: string;
  name: string;
  type: string;
  description: string;
  enabled: boolean;
  configuration: ColumnType<Record<string, unknown>, string, string>;
  filter_by_domain: string[];
  creator_id: string | null;
  revision: number;
  created_at: ColumnType<Date, string, string>;
  updated_at: ColumnType<Date, string, string>;
  deleted_at: ColumnType<Date | null, string | null, string | null>;
}

/** The idempotency_keys table: a REST write's kept answer per caller and key (24 h). */
export interface IdempotencyKeysTable {
  caller: string;
  key: string;
  fingerprint: string;
  correlation_id: string;
  method: string;
  path: string;
  status: number | null;
  headers: ColumnType<Record<string, unknown>, string, string>;
  body: string | null;
  created_at: ColumnType<Date, Date | string, Date | string>;
}

/** Every read table Kysely knows (the event store's own tables are the store adapter's). */
export interface Database {
  templates: DeclaredTable<typeof templateEntity>;
  template_executors: LinkTable<'template_id', 'executor_id'>;
  template_parents: LinkTable<'template_id', 'parent_id'>;
  integrations: DeclaredTable<typeof integrationEntity>;
  secrets: DeclaredTable<typeof secretEntity>;
  workspaces: DeclaredTable<typeof workspaceEntity>;
  teams: DeclaredTable<typeof teamEntity>;
  team_members: LinkTable<'team_id', 'user_id'>;
  team_leads: LinkTable<'team_id', 'user_id'>;
  entity_grants: EntityGrantsTable;
  source_codes: DeclaredTable<typeof sourceCodeEntity>;
  source_code_versions: DeclaredTable<typeof sourceCodeVersionEntity>;
  storages: DeclaredTable<typeof storageEntity>;
  executors: DeclaredTable<typeof executorEntity>;
  executor_integrations: LinkTable<'executor_id', 'integration_id'>;
  executor_secrets: LinkTable<'executor_id', 'secret_id'>;
  resources: DeclaredTable<typeof resourceEntity>;
  resource_integrations: LinkTable<'resource_id', 'integration_id'>;
  resource_secrets: LinkTable<'resource_id', 'secret_id'>;
  resource_parents: LinkTable<'resource_id', 'parent_id'>;
  audit_log: AuditLogTable;
  personal_access_tokens: PersonalAccessTokensTable;
  idempotency_keys: IdempotencyKeysTable;
  projection_checkpoints: ProjectionCheckpointsTable;
  users: UsersTable;
  sessions: SessionsTable;
  auth_providers: AuthProvidersTable;
}
