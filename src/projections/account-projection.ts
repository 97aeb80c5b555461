import { columnOf } from '../model/entity.js';
import { keptFields, type AccountDeclaration } from '../model/account.js';
import type { DecodedEvent } from '../events/codec.js';
import { redactSecrets } from '../events/secret-fields.js';
import { streamName } from '../events/streams.js';
import type { Projection } from './projection.js';
import { COLUMN_OF_KIND } from './catalog-projection.js';
import { createdByColumns, createdColumns, rowProjection, touched, type ColumnType } from './row-projection.js';

/** The bookkeeping columns every account table has (and `creator_id` where the declaration says so). */
const BOOKKEEPING_COLUMNS = {
  id: 'uuid',
  revision: 'integer',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
} as const satisfies Record<string, ColumnType>;

/**
 * Every column of an account's table: the bookkeeping ones, then one per kept field and state fact
 * (the snake_case of its name), those the service writes outside the projection included.
 */
export function accountTableColumns(account: AccountDeclaration): Record<string, ColumnType> {
  return {
    ...BOOKKEEPING_COLUMNS,
    ...(account.creator && { creator_id: 'uuid' }),
    ...Object.fromEntries(
      keptFields(account).map(([name, field]) => [
        columnOf(name),
        'timestamp' in field && field.timestamp ? 'timestamptz' : COLUMN_OF_KIND[field.kind as keyof typeof COLUMN_OF_KIND],
      ]),
    ),
  };
}

/** The columns the projection writes: the table's, but those the service writes itself (`projected: false`). */
export function accountColumns(account: AccountDeclaration): Record<string, ColumnType> {
  const outside = new Set(Object.entries(account.state).flatMap(([name, field]) => (field.projected === false ? [columnOf(name)] : [])));
  return Object.fromEntries(Object.entries(accountTableColumns(account)).filter(([column]) => !outside.has(column)));
}

/** A row of an account's table as the projection folds it (timestamps as ISO text). */
export type AccountRow = Record<string, unknown> & { id: string; revision: number; updated_at: string };

/** What an account's projection needs beyond its declaration. */
export interface AccountProjectionSpec<Row extends AccountRow> {
  /** The created and updated event types (`UserCreated`, `UserUpdated`); an account without updates names none. */
  readonly created: string;
  readonly updated?: string;
  /** Every event type the projection folds (the created and updated ones included). */
  readonly handles: readonly string[];
  /** The account's other events (deactivation, revocation, …), on the row `touched` already stamped. */
  readonly evolve: (row: Row, decoded: DecodedEvent) => Row;
}

/**
 * The read model of an account: the created event's fields land in their columns, the state facts
 * start at their initial values (those the service writes itself are left alone), the updated
 * event's changes overwrite theirs, and the hand-written `evolve` folds the rest. Every field of the
 * created event must have a column (those declared `column: false` aside), checked when the
 * projection is built: a field declared without one fails at start-up, not silently.
 */
export function accountProjection<Row extends AccountRow>(account: AccountDeclaration, spec: AccountProjectionSpec<Row>): Projection {
  const columns = accountColumns(account);
  const eventOnly = new Set(Object.entries(account.fields).flatMap(([name, field]) => (field.column === false ? [name] : [])));
  const unmapped = Object.keys(account.fields).filter((name) => !eventOnly.has(name) && !(columnOf(name) in columns));
  if (unmapped.length > 0) throw new TypeError(`projection ${account.table}: event fields without a column: ${unmapped.join(', ')}`);
  const initial = Object.fromEntries(
    Object.entries(account.state).flatMap(([name, field]) => (field.projected === false ? [] : [[columnOf(name), field.initial]])),
  );
  const stream = streamName(account.kind);

  const masked = account.secretPaths ?? [];
  /** Copies the declared fields among `values` into `row`, under their columns (write-only values as `********`). */
  const setColumns = (row: Record<string, unknown>, values: Readonly<Record<string, unknown>>): void => {
    for (const [name, value] of Object.entries(masked.length > 0 ? redactSecrets(values, masked) : values)) {
      const column = columnOf(name);
      if (value !== undefined && !eventOnly.has(name) && column in columns) row[column] = value;
    }
  };

  function evolve(row: Row | undefined, decoded: DecodedEvent): Row | undefined {
    const data = decoded.event.data as Record<string, unknown>;
    if (decoded.event.type === spec.created) {
      const created: Record<string, unknown> = structuredClone(initial);
      setColumns(created, data);
      Object.assign(created, { id: String(data.id) }, account.creator ? createdByColumns(decoded) : createdColumns(decoded));
      // Every column is set: the declared fields by the event, the state by its initial values.
      return created as Row;
    }
    if (!row) return undefined;
    const next = touched(row, decoded);
    if (decoded.event.type === spec.updated) {
      setColumns(next, data.changes as Record<string, unknown>);
      return next;
    }
    return spec.evolve(next, decoded);
  }

  return rowProjection<Row>({
    name: account.plural,
    table: account.table,
    columns,
    links: [],
    handles: spec.handles,
    rowId: (event) => stream.parse(event.streamId),
    evolve,
  });
}
