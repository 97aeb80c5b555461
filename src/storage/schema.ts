import type { ColumnType, Generated } from 'kysely';
import type { EntityDeclaration, StoredValue } from '../model/entity.js';
import type { templateEntity } from '../model/template.js';

/** `cloudResourceTypes` → `cloud_resource_types`, at the type level (as `columnOf` does at run time). */
type SnakeCase<S extends string> = S extends `${infer H}${infer T}` ? `${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}${SnakeCase<T>}` : S;

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

/** A declared entity's read table, as Kysely sees it: the common columns and one per value field. */
export type DeclaredTable<E extends EntityDeclaration> = CatalogCommonColumns & {
  [K in keyof E['fields'] as E['fields'][K] extends { readonly kind: 'idList' } ? never : SnakeCase<K & string>]: DeclaredColumn<E['fields'][K]>;
};

/** Read tables as Kysely sees them (snake_case columns, one per field). */
export type TemplatesTable = DeclaredTable<typeof templateEntity>;

/** The template_executors link table. */
export interface TemplateExecutorsTable {
  template_id: string;
  executor_id: string;
  ordinal: number;
}

/** The template_parents link table. */
export interface TemplateParentsTable {
  template_id: string;
  parent_id: string;
  ordinal: number;
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
  sessions_revoked_before: ColumnType<Date | null, string | null, string | null>;
  creator_id: string | null;
  revision: number;
  created_at: ColumnType<Date, string, string>;
  updated_at: ColumnType<Date, string, string>;
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

/** Every read table Kysely knows. */
export interface Database {
  templates: TemplatesTable;
  template_executors: TemplateExecutorsTable;
  template_parents: TemplateParentsTable;
  projection_checkpoints: ProjectionCheckpointsTable;
  users: UsersTable;
  sessions: SessionsTable;
  auth_providers: AuthProvidersTable;
}
