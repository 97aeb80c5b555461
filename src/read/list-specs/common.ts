import { LIFECYCLE_STATES, LIFECYCLE_STATUSES } from '../../model/lifecycle.js';
import { columnOf, ownFields, type EntityDeclaration, type FieldDeclaration } from '../../model/entity.js';
import { shownFields, type AccountDeclaration } from '../../model/account.js';
import type { FieldSpec, LinkSpec, ListSpec } from '../list-query.js';

/** The list fields every catalog table offers (docs/contract.md §2 common fields; `status` enabled/disabled). */
export const catalogCommonListFields: Readonly<Record<string, FieldSpec>> = {
  id: { column: 'id', type: 'uuid' },
  description: { column: 'description', type: 'text' },
  labels: { column: 'labels', type: 'text[]' },
  status: { column: 'status', type: 'enum', values: ['enabled', 'disabled'] },
  creatorId: { column: 'creator_id', type: 'uuid' },
  createdAt: { column: 'created_at', type: 'datetime' },
  updatedAt: { column: 'updated_at', type: 'datetime' },
};

/** The same for lifecycle entities (storages, executors, resources): `state` and the lifecycle `status`. */
export const lifecycleListFields: Readonly<Record<string, FieldSpec>> = {
  ...catalogCommonListFields,
  state: { column: 'state', type: 'enum', values: LIFECYCLE_STATES },
  status: { column: 'status', type: 'enum', values: LIFECYCLE_STATUSES },
};

const LIST_TYPE_OF_KIND = { text: 'text', boolean: 'boolean', textList: 'text[]', id: 'uuid' } as const;

/**
 * How a list takes one declared value field: its column, its type (a timestamp's is `datetime`) and
 * its filter and sort flags; JSON is listed, never filtered. Id lists are link filters, not fields.
 */
function valueFieldSpec(name: string, field: Exclude<FieldDeclaration, { kind: 'idList' }> & { readonly timestamp?: true }): FieldSpec {
  const column = columnOf(name);
  const flags = { ...(field.filter === false && { filterable: false }), ...(field.sort !== undefined && { sortable: field.sort }) };
  if (field.kind === 'json') return { column, type: 'json' };
  if (field.kind === 'enum') return { column, type: 'enum', values: field.values, ...flags };
  if (field.timestamp) return { column, type: 'datetime', ...flags };
  if (field.kind === 'integer') return { column, type: 'number', integer: true, ...flags };
  return { column, type: LIST_TYPE_OF_KIND[field.kind], ...flags };
}

/**
 * The list of a declared catalog entity: the common fields (the lifecycle ones for lifecycle
 * entities, and `revision`), each declared value field with its filter and sort flags, each id list
 * as a link filter, `q` over the declared search fields and the description.
 */
export function declaredListSpec<T extends string>(entity: EntityDeclaration & { readonly table: T }): ListSpec<T> {
  const { id, ...common } = entity.lifecycle ? lifecycleListFields : catalogCommonListFields;
  const fields: Record<string, FieldSpec> = { id: id ?? { column: 'id', type: 'uuid' } };
  const links: Record<string, LinkSpec> = {};
  for (const [name, field] of ownFields(entity)) {
    if (field.kind === 'idList') links[field.filterAs] = field.link;
    else fields[name] = valueFieldSpec(name, field);
  }
  Object.assign(fields, common, { revision: { column: 'revision', type: 'number', integer: true } });
  const search = ownFields(entity).flatMap(([name, field]) => (field.search ? [columnOf(name)] : []));
  return { resource: entity.plural, table: entity.table, fields, links, search: [...search, 'description'], softDelete: true };
}

const LIST_SPECS = new Map<string, ListSpec>();

/** The list of a declared kind (its `declaredListSpec`), made once per kind. */
export function listSpecOf(entity: EntityDeclaration): ListSpec {
  let spec = LIST_SPECS.get(entity.kind);
  if (!spec) LIST_SPECS.set(entity.kind, (spec = declaredListSpec(entity)));
  return spec;
}

/**
 * The list of a declared account (users, auth providers): its id, each shown field and state fact
 * with its filter and sort flags, the timestamps, `q` over the fields declared `search`; tombstoned
 * records (a `deletedAt` fact) left out.
 */
export function accountListSpec<T extends string>(account: AccountDeclaration & { readonly table: T }): ListSpec<T> {
  const fields: Record<string, FieldSpec> = { id: { column: 'id', type: 'uuid' } };
  for (const [name, field] of shownFields(account)) if (field.kind !== 'idList') fields[name] = valueFieldSpec(name, field);
  Object.assign(fields, { createdAt: { column: 'created_at', type: 'datetime' }, updatedAt: { column: 'updated_at', type: 'datetime' } });
  const search = shownFields(account).flatMap(([name, field]) => (field.search ? [columnOf(name)] : []));
  // A record deleted by a tombstone (`deletedAt`) is never listed.
  return { resource: account.plural, table: account.table, fields, search, ...('deletedAt' in account.state && { softDelete: true }) };
}
