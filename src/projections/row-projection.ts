import type { SqlClient } from '../storage/pool.js';
import type { DecodedEvent } from '../events/codec.js';
import { actorUserId } from './metadata.js';
import type { Projection } from './projection.js';

/** A column's PostgreSQL type, for jsonb_to_recordset. */
export type ColumnType = 'uuid' | 'text' | 'text[]' | 'jsonb' | 'boolean' | 'integer' | 'bigint' | 'timestamptz';

/** A list field kept in a link table (owner id, target id, ordinal). */
export interface LinkTable<Row> {
  readonly table: string;
  readonly ownerColumn: string;
  readonly targetColumn: string;
  readonly field: keyof Row & string;
}

/** Rows written per statement when a replay writes its rows. */
const REPLAY_WRITE_CHUNK = 5000;
/** Rows a replay keeps in memory before it writes them out (and reloads those whose events continue). */
const REPLAY_ROWS_IN_MEMORY = 200_000;

/** What a row projection is built from. */
export interface RowProjectionSpec<Row extends { id: string; revision: number }> {
  readonly name: string;
  readonly table: string;
  /** Column name → type, for every column of `table` (Row keys are the column names; link fields are not columns). */
  readonly columns: Readonly<Record<string, ColumnType>>;
  readonly links: readonly LinkTable<Row>[];
  readonly handles: readonly string[];
  /** The row an event belongs to. */
  readonly rowId: (event: DecodedEvent) => string;
  /** Pure: the row after the event. Never throws on a well-formed event. */
  readonly evolve: (row: Row | undefined, event: DecodedEvent) => Row | undefined;
}

/** What an event stamps on the row it concerns: the row's revision (events so far) and the event's time. */
export function stampOf(decoded: DecodedEvent): { readonly revision: number; readonly at: string } {
  return { revision: Number(decoded.streamRevision) + 1, at: decoded.metadata.occurredAt };
}

/** The bookkeeping columns of a row an event creates: revision and both timestamps. */
export function createdColumns(decoded: DecodedEvent): { revision: number; created_at: string; updated_at: string } {
  const { revision, at } = stampOf(decoded);
  return { revision, created_at: at, updated_at: at };
}

/** The same, with the acting user as the row's creator (null for the system). */
export const createdByColumns = (decoded: DecodedEvent): { creator_id: string | null; revision: number; created_at: string; updated_at: string } => ({
  creator_id: actorUserId(decoded.metadata),
  ...createdColumns(decoded),
});

/** A row an event changes: its revision and `updated_at` follow the event. */
export function touched<Row extends { revision: number; updated_at: string }>(row: Row, decoded: DecodedEvent): Row {
  const { revision, at } = stampOf(decoded);
  return { ...row, revision, updated_at: at };
}

/**
 * A projection of one row per aggregate (plus link tables for its lists). Each batch loads the rows
 * it touches, folds the events in memory and writes each changed row once: a handful of statements
 * per batch, whatever its size. Events at or below a row's revision are skipped, so replaying the
 * same events again leaves the tables as they are.
 */
export function rowProjection<Row extends { id: string; revision: number }>(spec: RowProjectionSpec<Row>): Projection {
  const scalarColumns = Object.keys(spec.columns);
  const recordsetColumns = scalarColumns.map((c) => `${c} ${spec.columns[c]}`).join(', ');
  const upsert = `INSERT INTO ${spec.table} (${scalarColumns.join(', ')})
    SELECT ${scalarColumns.join(', ')} FROM jsonb_to_recordset($1::jsonb) AS r(${recordsetColumns})
    ON CONFLICT (id) DO UPDATE SET ${scalarColumns.filter((c) => c !== 'id').map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`;

  // One statement loads the rows and every link list: a batch costs a round trip less per link table.
  const loadRows = `SELECT ${[
    ...scalarColumns,
    ...spec.links.map(
      (link) => `ARRAY(SELECT l.${link.targetColumn}::text FROM ${link.table} l WHERE l.${link.ownerColumn} = r.id ORDER BY l.ordinal) AS ${link.field}`,
    ),
  ].join(', ')} FROM ${spec.table} r WHERE r.id = ANY($1::uuid[])`;

  async function load(tx: SqlClient, ids: readonly string[]): Promise<Map<string, Row>> {
    const { rows } = await tx.query<Row>(loadRows, [ids]);
    return new Map(rows.map((r) => [r.id, r]));
  }

  const insert = `INSERT INTO ${spec.table} (${scalarColumns.join(', ')})
    SELECT ${scalarColumns.join(', ')} FROM jsonb_to_recordset($1::jsonb) AS r(${recordsetColumns})`;

  /**
   * Writes changed rows and their link lists. `fresh`: none of these rows was ever written (a
   * rebuild's first write of them), so plain inserts do and no old link rows need deleting.
   */
  async function write(tx: SqlClient, changed: readonly { before: Row | undefined; after: Row }[], fresh: boolean): Promise<void> {
    if (changed.length === 0) return;
    const scalars = JSON.stringify(changed.map(({ after: row }) => Object.fromEntries(scalarColumns.map((c) => [c, (row as Record<string, unknown>)[c]]))));
    await tx.query(fresh ? insert : upsert, [scalars]);
    for (const link of spec.links) {
      const moved = fresh ? changed : changed.filter((c) => JSON.stringify(c.before?.[link.field] ?? []) !== JSON.stringify(c.after[link.field]));
      if (moved.length === 0) continue;
      if (!fresh) await tx.query(`DELETE FROM ${link.table} WHERE ${link.ownerColumn} = ANY($1::uuid[])`, [moved.map((c) => c.after.id)]);
      const owners: string[] = [];
      const targets: string[] = [];
      const ordinals: number[] = [];
      for (const { after: row } of moved) {
        (row[link.field] as readonly string[]).forEach((target, i) => {
          owners.push(row.id);
          targets.push(target);
          ordinals.push(i);
        });
      }
      if (owners.length > 0) {
        await tx.query(`INSERT INTO ${link.table} (${link.ownerColumn}, ${link.targetColumn}, ordinal) SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::int[])`, [
          owners,
          targets,
          ordinals,
        ]);
      }
    }
  }

  /** Folds `events` into `rows` (events at or below a row's revision are skipped); answers the rows changed. */
  function fold(rows: Map<string, Row>, events: readonly DecodedEvent[], changed: Map<string, { before: Row | undefined; after: Row }>): void {
    for (const event of events) {
      const id = spec.rowId(event);
      const current = rows.get(id);
      // The row's revision counts the events already in it: those are skipped (idempotent replay).
      if (current && Number(event.streamRevision) < current.revision) continue;
      const next = spec.evolve(current, event);
      if (!next) continue;
      rows.set(id, next);
      const entry = changed.get(id);
      changed.set(id, { before: entry ? entry.before : current, after: next });
    }
  }

  return {
    name: spec.name,
    tables: [spec.table, ...spec.links.map((l) => l.table)],
    handles: new Set(spec.handles),
    async applyBatch(tx, events) {
      const rows = await load(tx, [...new Set(events.map(spec.rowId))]);
      const changed = new Map<string, { before: Row | undefined; after: Row }>();
      fold(rows, events, changed);
      await write(tx, [...changed.values()], false);
    },
    replay() {
      // Every row in memory until the end (or until too many), each written once with plain inserts.
      let rows = new Map<string, Row>();
      let changed = new Map<string, { before: Row | undefined; after: Row }>();
      const written = new Set<string>();
      const flush = async (tx: SqlClient): Promise<void> => {
        const entries = [...changed.values()];
        for (let i = 0; i < entries.length; i += REPLAY_WRITE_CHUNK) {
          const chunk = entries.slice(i, i + REPLAY_WRITE_CHUNK);
          await write(tx, chunk.filter((c) => !written.has(c.after.id)), true);
          await write(tx, chunk.filter((c) => written.has(c.after.id)), false);
        }
        for (const { after } of entries) written.add(after.id);
        rows = new Map();
        changed = new Map();
      };
      return {
        async apply(tx, events) {
          // Rows written by an earlier flush come back from the table when their events continue.
          const missing = [...new Set(events.map(spec.rowId))].filter((id) => !rows.has(id) && written.has(id));
          if (missing.length > 0) for (const [id, row] of await load(tx, missing)) rows.set(id, row);
          fold(rows, events, changed);
          if (rows.size >= REPLAY_ROWS_IN_MEMORY) await flush(tx);
        },
        finish: flush,
      };
    },
  };
}
