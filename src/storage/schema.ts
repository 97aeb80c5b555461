import type { ColumnType, Generated } from 'kysely';
import type { DeclaredEntity } from '../model/catalog.js';
import type { EntityDeclaration, StoredValue } from '../model/entity.js';
import type { AccountDeclaration } from '../model/account.js';
import type { userEntity } from '../model/user.js';
import type { authProviderEntity } from '../model/auth-provider.js';
import type { sessionEntity } from '../model/session.js';
import type { personalAccessTokenEntity } from '../model/personal-access-token.js';

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

/** The bookkeeping columns every account table has (src/model/account.ts), and `creator_id` where it is declared. */
export interface AccountBookkeepingColumns {
  id: string;
  revision: number;
  created_at: ColumnType<Date, string, string>;
  updated_at: ColumnType<Date, string, string>;
}

/** An account field's column: a timestamp reads as a Date and is written as ISO text; JSON as in catalog tables. */
type AccountColumn<F> = F extends { readonly timestamp: true }
  ? F extends { readonly nullable: true }
    ? ColumnType<Date | null, string | null, string | null>
    : ColumnType<Date, string, string>
  : DeclaredColumn<F>;

/**
 * A declared account's read table, as Kysely sees it: the bookkeeping columns, one per field kept
 * in the read model and one per state fact.
 */
export type DeclaredAccountTable<A extends AccountDeclaration> = AccountBookkeepingColumns &
  (A extends { readonly creator: true } ? { creator_id: string | null } : unknown) & {
    [K in keyof A['fields'] as A['fields'][K] extends { readonly column: false } ? never : SnakeCase<K & string>]: AccountColumn<
      A['fields'][K]
    >;
  } & { [K in keyof A['state'] as SnakeCase<K & string>]: AccountColumn<A['state'][K]> };

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

/** The personal_access_tokens read table (src/model/personal-access-token.ts): the token itself is never stored, only its hash. */
export type PersonalAccessTokensTable = DeclaredAccountTable<typeof personalAccessTokenEntity>;

/** The projection_checkpoints table. */
export interface ProjectionCheckpointsTable {
  name: string;
  position: string | null;
  status: Generated<string>;
  error: string | null;
  failed_event_id: string | null;
  updated_at: Generated<Date>;
}

/** The users read table (src/model/user.ts). */
export type UsersTable = DeclaredAccountTable<typeof userEntity>;

/** The grants on single entities (src/projections/entity-grants.ts). */
export interface EntityGrantsTable {
  entity_id: string;
  entity_kind: string;
  subject_type: 'user' | 'team';
  subject_id: string;
  level: 'read' | 'write' | 'admin';
  granted_at: ColumnType<Date, string, string>;
}

/** The sessions read table (src/model/session.ts). */
export type SessionsTable = DeclaredAccountTable<typeof sessionEntity>;

/** The auth_providers read table (src/model/auth-provider.ts). */
export type AuthProvidersTable = DeclaredAccountTable<typeof authProviderEntity>;

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

/** Every declared kind's read table, by its name (src/model/catalog.ts). */
type DeclaredTables = { [E in DeclaredEntity as E['table']]: DeclaredTable<E> };

/** Every read table Kysely knows (the event store's own tables are the store adapter's). */
export interface Database extends DeclaredTables {
  template_executors: LinkTable<'template_id', 'executor_id'>;
  template_parents: LinkTable<'template_id', 'parent_id'>;
  team_members: LinkTable<'team_id', 'user_id'>;
  team_leads: LinkTable<'team_id', 'user_id'>;
  entity_grants: EntityGrantsTable;
  executor_integrations: LinkTable<'executor_id', 'integration_id'>;
  executor_secrets: LinkTable<'executor_id', 'secret_id'>;
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
