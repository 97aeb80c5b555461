import type { z } from 'zod';
import { columnOf, idListFields, ownFields, secretPathsOf, type EntityDeclaration, type FieldKind } from '../model/entity.js';
import { redactSecrets } from '../events/secret-fields.js';
import type { CatalogEventTypes, LifecycleEventTypes } from '../events/kits.js';
import { streamName } from '../events/streams.js';
import type { DecodedEvent } from '../events/codec.js';
import type { Projection } from './projection.js';
import { createdByColumns, rowProjection, touched, type ColumnType, type LinkTable } from './row-projection.js';
import type { SqlFoldSpec } from './sql-fold.js';

/** Columns every catalog table has (docs/contract.md §2 common fields plus bookkeeping). */
const COMMON_COLUMNS: Readonly<Record<string, ColumnType>> = {
  id: 'uuid',
  description: 'text',
  labels: 'text[]',
  status: 'text',
  creator_id: 'uuid',
  revision: 'integer',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
  deleted_at: 'timestamptz',
};

/** A link list of a catalog table, returned as an id array under the camelCase of `field`. */
export interface ReadLink {
  readonly table: string;
  readonly ownerColumn: string;
  readonly targetColumn: string;
  /** snake_case name in the view before camelCasing, e.g. `integration_ids`. */
  readonly field: string;
}

/** What a created row holds where its event has no such field (the SQL fold starts from the same). */
const createdDefaults = (): { description: string; labels: string[] } => ({ description: '', labels: [] });

/** A catalog table's row as its projection folds it: columns by name, and each link list as an id array. */
export type CatalogRow = Record<string, unknown> & { id: string; revision: number; updated_at: string };
type Row = CatalogRow;

/**
 * A catalog entity's projection, with the fold it applies to one row: reads of an entity as it was
 * (src/read/as-of.ts) fold its events with the very function that builds its row.
 */
export interface CatalogProjection extends Projection {
  evolve(row: CatalogRow | undefined, decoded: DecodedEvent): CatalogRow | undefined;
  readonly links: readonly LinkTable<CatalogRow>[];
  /**
   * The same fold in SQL, for rebuilds (src/projections/sql-fold.ts); absent when the projection
   * masks secrets, which only Node can do.
   */
  readonly sqlFold?: SqlFoldSpec;
}

/** Whether a projection is a catalog entity's (it can fold a row). */
export const isCatalogProjection = (projection: Projection): projection is CatalogProjection => 'evolve' in projection;

/** What a catalog entity's projection is built from. */
export interface CatalogProjectionSpec {
  /** Projection and table name, e.g. `integrations`. */
  readonly table: string;
  readonly kind: string;
  /** The entity's event type names (e.g. `integrationEventTypes`). */
  readonly events: CatalogEventTypes<string> | LifecycleEventTypes<string>;
  /**
   * The entity's event fields: every one must land in a column or a link table. Checked when the
   * projection is built, so a field added to the events without a column fails at start-up instead
   * of being dropped silently.
   */
  readonly fields: z.ZodObject;
  /** The entity's own columns (not the common ones). */
  readonly columns: Readonly<Record<string, ColumnType>>;
  /** List fields kept in link tables; `field` is the snake_case of the input field (`integration_ids`). */
  readonly links?: readonly LinkTable<Row>[];
  /** Rewrites fields before they reach the table (e.g. masks secret configuration values). */
  readonly mask?: (fields: Record<string, unknown>) => Record<string, unknown>;
  /**
   * A lifecycle entity (lifecycle-entity.ts): `status` is its lifecycle status, the table has a
   * `state` column, and `…Transitioned` events move them (plus `outputs`/`last_error` columns when
   * the table has them).
   */
  readonly lifecycle?: boolean;
}

/** The column type each field kind is stored in (id lists live in link tables). */
export const COLUMN_OF_KIND: Readonly<Record<Exclude<FieldKind, 'idList'>, ColumnType>> = {
  text: 'text',
  enum: 'text',
  boolean: 'boolean',
  integer: 'integer',
  json: 'jsonb',
  textList: 'text[]',
  id: 'uuid',
};

/**
 * A declared entity's own columns: each value field by the snake_case of its name, and a lifecycle
 * entity's `state` and `last_error` (and `outputs` when its runs report them).
 */
export function declaredColumns(entity: EntityDeclaration): Record<string, ColumnType> {
  const columns: Record<string, ColumnType> = Object.fromEntries(
    ownFields(entity).flatMap(([name, field]) => (field.kind === 'idList' ? [] : [[columnOf(name), COLUMN_OF_KIND[field.kind]]])),
  );
  if (entity.lifecycle) Object.assign(columns, { state: 'text', last_error: 'text' }, entity.lifecycle.outputs && { outputs: 'jsonb' });
  return columns;
}

/** Every column of a declared entity's table, the common ones first: what its projection writes and its reader reads. */
export const declaredTableColumns = (entity: EntityDeclaration): Record<string, ColumnType> => ({
  ...COMMON_COLUMNS,
  ...declaredColumns(entity),
});

/** A declared entity's link tables (each id-list field). */
export const declaredLinks = (entity: EntityDeclaration): ReadLink[] =>
  idListFields(entity).map(([name, field]) => ({ ...field.link, field: columnOf(name) }));

/**
 * The read model of a declared entity: its columns, link tables and masking of write-only values
 * all come from the declaration.
 */
export function declaredProjection(
  entity: EntityDeclaration,
  events: CatalogProjectionSpec['events'],
  fields: z.ZodObject,
): CatalogProjection {
  const secretPaths = secretPathsOf(entity);
  const when = entity.secrets?.when;
  return catalogProjection({
    table: entity.table,
    kind: entity.kind,
    events,
    fields,
    columns: declaredColumns(entity),
    links: declaredLinks(entity),
    lifecycle: entity.lifecycle !== undefined,
    ...(secretPaths.length > 0 && { mask: (values) => redactSecrets(values, secretPaths, when ? { when } : {}) }),
  });
}

/** A row projection for a catalog entity: fields map to snake_case columns and link tables. */
export function catalogProjection(spec: CatalogProjectionSpec): CatalogProjection {
  const names: Partial<CatalogEventTypes<string> & LifecycleEventTypes<string>> = spec.events;
  const links = spec.links ?? [];
  const targets = new Set([...Object.keys(spec.columns), ...Object.keys(COMMON_COLUMNS), ...links.map((l) => l.field)]);
  const unmapped = Object.keys(spec.fields.shape).filter((field) => !targets.has(columnOf(field)));
  if (unmapped.length > 0) throw new TypeError(`projection ${spec.table}: event fields without a column: ${unmapped.join(', ')}`);
  const stream = streamName(spec.kind);
  // Field → column names, worked out once per field (every event of a replay goes through here).
  const columns = new Map<string, string>();
  /** Writes the event's fields into `row` (a copy the caller owns) under their column names. */
  const setColumns = (row: Record<string, unknown>, fields: Record<string, unknown>): void => {
    for (const [key, value] of Object.entries(spec.mask ? spec.mask(fields) : fields)) {
      let column = columns.get(key);
      if (column === undefined) columns.set(key, (column = columnOf(key)));
      if (targets.has(column) && value !== undefined) row[column] = value;
    }
  };
  // Every row starts as a copy of this one, so all rows share one shape (key order): V8 then copies
  // and updates them on its fast paths, which a replay of every event spends most of its folding in.
  const blank: Record<string, unknown> = Object.fromEntries(
    [...Object.keys(COMMON_COLUMNS), ...Object.keys(spec.columns), ...links.map((l) => l.field)].map((c) => [c, undefined]),
  );

  function evolve(row: Row | undefined, decoded: DecodedEvent): Row | undefined {
    const { type } = decoded.event;
    const data = decoded.event.data as Record<string, unknown>;
    if (type === names.created) {
      const created: Record<string, unknown> = { ...blank };
      for (const link of links) created[link.field] = [];
      Object.assign(created, createdDefaults());
      setColumns(created, data);
      created.id = String(data.id);
      Object.assign(created, createdByColumns(decoded));
      created.deleted_at = null;
      return created as Row;
    }
    if (!row) return undefined;
    const next = touched(row, decoded);
    switch (type) {
      case names.updated:
        setColumns(next, data.changes as Record<string, unknown>);
        return next;
      // `next` is this event's own copy of the row: set in place rather than copied once more.
      case names.enabled:
        next.status = 'enabled';
        return next;
      case names.disabled:
        next.status = 'disabled';
        return next;
      case names.transitioned: {
        const columns = spec.columns;
        return {
          ...next,
          state: data.state,
          status: data.status,
          ...('outputs' in columns && data.outputs !== undefined && { outputs: data.outputs }),
          ...('last_error' in columns && { last_error: data.error ?? null }),
        };
      }
      case names.deleted:
        // A tombstone keeps the revision, so a replay cannot resurrect the row.
        return { ...next, deleted_at: next.updated_at, ...Object.fromEntries(links.map((l) => [l.field, []])) };
      default:
        return next;
    }
  }

  const projection = rowProjection<Row>({
    name: spec.table,
    table: spec.table,
    columns: { ...COMMON_COLUMNS, ...spec.columns },
    links,
    handles: Object.values(spec.events),
    rowId: (event) => stream.parse(event.streamId),
    evolve,
  });
  return { ...projection, evolve, links, ...(!spec.mask && { sqlFold: sqlFoldOf(spec, names, links) }) };
}

/**
 * The fold of `evolve` in SQL. Columns take their values from the event fields whose snake_case they
 * are: the entity's fields, plus the created event's `id`, `status` and (lifecycle) `state`, and the
 * `outputs` a run reports.
 */
function sqlFoldOf(
  spec: CatalogProjectionSpec,
  names: Partial<CatalogEventTypes<string> & LifecycleEventTypes<string>>,
  links: readonly LinkTable<Row>[],
): SqlFoldSpec {
  const { created, updated, deleted } = names;
  if (!created || !updated || !deleted) throw new TypeError(`projection ${spec.table}: created, updated and deleted events are required`);
  const columns = { ...COMMON_COLUMNS, ...spec.columns };
  const fieldNames = [...Object.keys(spec.fields.shape), 'id', 'status', 'state', 'outputs'];
  const keyOf = new Map(fieldNames.map((field) => [columnOf(field), field]));
  const keys = Object.fromEntries(
    Object.keys(columns).flatMap((column) => (keyOf.has(column) ? [[column, keyOf.get(column) as string]] : [])),
  );
  return {
    table: spec.table,
    columns,
    keys,
    defaults: createdDefaults(),
    links: links.map((link) => {
      const key = keyOf.get(link.field);
      if (key === undefined) throw new TypeError(`projection ${spec.table}: no event field for link ${link.field}`);
      return { table: link.table, ownerColumn: link.ownerColumn, targetColumn: link.targetColumn, key };
    }),
    events: {
      created,
      updated,
      deleted,
      ...(names.enabled && { enabled: names.enabled }),
      ...(names.disabled && { disabled: names.disabled }),
      ...(names.transitioned && { transitioned: names.transitioned }),
    },
    handles: Object.values(spec.events),
  };
}
