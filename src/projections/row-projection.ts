import { arrayLiteral } from '../storage/literals.js';
import type { SqlClient } from '../storage/pool.js';
import type { DecodedEvent } from '../events/codec.js';
import { actorUserId } from './metadata.js';
import { runPool } from '../run-pool.js';
import { PLAN_ONCE, writingAtOnce, type BatchClient, type Projection, type ReplayTransaction, type ReplayTuning } from './projection.js';

/** A column's PostgreSQL type, as json_to_recordset reads it into the table. */
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
/**
 * Writes a replay runs at the same time, each in a transaction of its own: PostgreSQL parses and
 * inserts one while Node serialises the next, or folds the next pages (PGlite, one connection, takes
 * them in turn). With one background write at a time, a rebuild waited on it for a quarter of its
 * replay.
 */
const REPLAY_PARALLEL_WRITES = 2;
/** Rows a replay keeps in memory before it writes them out (and reloads those whose events continue). */
const REPLAY_ROWS_IN_MEMORY = 200_000;
/**
 * Events a replay folds without one for a row before it writes the row out, at first. Each time rows
 * written so come back (their events continued), the wait doubles: a log whose entities change
 * throughout soon keeps them in memory to the end again, written once.
 */
const REPLAY_QUIET_EVENTS = 10_000;

/** A row a batch or a replay changed: as it was before, as it is now, and the replay's event count when it last changed. */
interface Change<Row> {
  readonly before: Row | undefined;
  readonly after: Row;
  readonly at: number;
}

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
export const createdByColumns = (
  decoded: DecodedEvent,
): { creator_id: string | null; revision: number; created_at: string; updated_at: string } => ({
  creator_id: actorUserId(decoded.metadata),
  ...createdColumns(decoded),
});

/** A row an event changes: its revision and `updated_at` follow the event. */
export function touched<Row extends { revision: number; updated_at: string }>(row: Row, decoded: DecodedEvent): Row {
  const { revision, at } = stampOf(decoded);
  return { ...row, revision, updated_at: at };
}

/**
 * The rows a live batch must load: those whose first event in the batch is not their stream's first.
 * A row is its aggregate's stream (`rowId` reads the stream id, revisions are the stream's), and the
 * hub applies each event once (the checkpoint moves in the batch's transaction, checked under its
 * lock), so a row born in this batch is not in the table yet: a batch of creates (most of a busy
 * service's, and all of a seed's) skips the load, one statement and round trip fewer.
 */
export function existingRowIds(events: readonly DecodedEvent[], rowId: (event: DecodedEvent) => string): string[] {
  const first = new Map<string, bigint>();
  for (const event of events) {
    const id = rowId(event);
    if (!first.has(id)) first.set(id, event.streamRevision);
  }
  return [...first].filter(([, revision]) => revision !== 0n).map(([id]) => id);
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
  // Rows travel as one JSON document: JSON.stringify is native, where building a text array per
  // column in JavaScript cost a replay as much as the rest of its writing in Node. json (not jsonb)
  // because PostgreSQL reads it without building a tree first. Keys that are not columns (the link
  // lists) are ignored by json_to_recordset.
  const insert = `INSERT INTO ${spec.table} (${scalarColumns.join(', ')})
    SELECT ${scalarColumns.join(', ')} FROM json_to_recordset($1::json) AS r(${recordsetColumns})`;
  const upsert = `${insert}
    ON CONFLICT (id) DO UPDATE SET ${scalarColumns
      .filter((c) => c !== 'id')
      .map((c) => `${c} = EXCLUDED.${c}`)
      .join(', ')}`;

  // One statement loads the rows and every link list: a batch costs a round trip less per link table.
  const loadRows = `SELECT ${[
    ...scalarColumns,
    ...spec.links.map(
      (link) =>
        `ARRAY(SELECT l.${link.targetColumn}::text FROM ${link.table} l WHERE l.${link.ownerColumn} = r.id ORDER BY l.ordinal) AS ` +
        link.field,
    ),
  ].join(', ')} FROM ${spec.table} r WHERE r.id = ANY($1::uuid[])`;

  async function load(tx: SqlClient, ids: readonly string[]): Promise<Map<string, Row>> {
    if (ids.length === 0) return new Map();
    const { rows } = await tx.query<Row>(loadRows, [ids]);
    return new Map(rows.map((r) => [r.id, r]));
  }

  /**
   * Writes changed rows and their link lists. `fresh`: none of these rows was ever written (a
   * rebuild's first write of them), so plain inserts do and no old link rows need deleting.
   */
  async function write(tx: BatchClient, changed: readonly Change<Row>[], fresh: boolean): Promise<void> {
    if (changed.length === 0) return;
    // Nothing here reads an answer: a batch's transaction may send these with its COMMIT.
    await tx.write(fresh ? insert : upsert, [JSON.stringify(changed.map((c) => c.after))], PLAN_ONCE);
    for (const link of spec.links) {
      const moved = fresh
        ? changed
        : changed.filter((c) => JSON.stringify(c.before?.[link.field] ?? []) !== JSON.stringify(c.after[link.field]));
      if (moved.length === 0) continue;
      if (!fresh)
        await tx.write(`DELETE FROM ${link.table} WHERE ${link.ownerColumn} = ANY($1::uuid[])`, [
          arrayLiteral(moved.map((c) => c.after.id)),
        ]);
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
        await tx.write(
          `INSERT INTO ${link.table} (${link.ownerColumn}, ${link.targetColumn}, ordinal) SELECT * FROM unnest($1::uuid[], $2::uuid[], ` +
            `$3::int[])`,
          [arrayLiteral(owners), arrayLiteral(targets), `{${ordinals.join(',')}}`],
          PLAN_ONCE,
        );
      }
    }
  }

  /**
   * Folds `event` into `rows` (skipped when at or below its row's revision) and records its changed
   * row in `changed` at `at`, moved to the end: the map stays in order of last change.
   */
  function foldOne(rows: Map<string, Row>, event: DecodedEvent, changed: Map<string, Change<Row>>, at: number): void {
    const id = spec.rowId(event);
    const current = rows.get(id);
    // The row's revision counts the events already in it: those are skipped (idempotent replay).
    if (current && Number(event.streamRevision) < current.revision) return;
    const next = spec.evolve(current, event);
    if (!next) return;
    rows.set(id, next);
    const entry = changed.get(id);
    if (entry) changed.delete(id);
    changed.set(id, { before: entry ? entry.before : current, after: next, at });
  }

  return {
    name: spec.name,
    tables: [spec.table, ...spec.links.map((l) => l.table)],
    handles: new Set(spec.handles),
    async applyBatch(tx, events) {
      const rows = await load(tx, existingRowIds(events, spec.rowId));
      const changed = new Map<string, Change<Row>>();
      for (const event of events) foldOne(rows, event, changed, 0);
      await write(tx, [...changed.values()], false);
    },
    replay(transaction: ReplayTransaction, tuning?: ReplayTuning) {
      // Rows stay in memory while their events continue. A row no event changed for `quiet` events is
      // written out (a plain insert) in a transaction of its own while the next pages fold, so
      // PostgreSQL inserts during the replay instead of after it; should its events continue after
      // all, it is loaded back and upserted, as the live path would.
      let rows = new Map<string, Row>();
      let changed = new Map<string, Change<Row>>();
      const written = new Set<string>();
      let seen = 0;
      let quiet = tuning?.quietEvents ?? REPLAY_QUIET_EVENTS;
      // Writes running in the background, at most REPLAY_PARALLEL_WRITES: the oldest is awaited before
      // another starts, all of them before rows are loaded back and at the end (a failure surfaces
      // there and fails the rebuild, once the others have ended too).
      const writing: Promise<void>[] = [];
      const allWritten = async (): Promise<void> => {
        const failed = (await Promise.allSettled(writing.splice(0))).find((outcome) => outcome.status === 'rejected');
        if (failed) throw failed.reason;
      };

      /** Writes `entries` in chunks, `parallel` transactions of `open` at a time; fresh ones are inserted. */
      const writeOut = async (entries: readonly Change<Row>[], open: ReplayTransaction, parallel: number): Promise<void> => {
        const chunks: { fresh: Change<Row>[]; again: Change<Row>[] }[] = [];
        // Even chunks, so that parallel transactions end together (7,000 rows: two of 3,500, not 5,000 and 2,000).
        const size = Math.min(REPLAY_WRITE_CHUNK, Math.ceil(entries.length / parallel));
        for (let i = 0; i < entries.length; i += size) {
          const chunk = entries.slice(i, i + size);
          chunks.push({ fresh: chunk.filter((c) => !written.has(c.after.id)), again: chunk.filter((c) => written.has(c.after.id)) });
        }
        for (const { after } of entries) written.add(after.id);
        await runPool(chunks.length, parallel, async (i) => {
          const { fresh, again } = chunks[i] ?? { fresh: [], again: [] };
          await open(async (tx) => {
            const atOnce = writingAtOnce(tx);
            await write(atOnce, fresh, true);
            await write(atOnce, again, false);
          });
        });
      };

      /** Takes the rows no event changed in the last `events` events out of memory, for writing. */
      const takeQuiet = (events: number): Change<Row>[] => {
        const taken: Change<Row>[] = [];
        for (const [id, entry] of changed) {
          if (entry.at > seen - events) break; // the rest changed later (the map is in order of last change)
          taken.push(entry);
          changed.delete(id);
          rows.delete(id);
        }
        return taken;
      };

      // Events of rows written out earlier, held until the page ends and their rows are loaded back,
      // with every later event of those rows (each row's events keep their order).
      let held: DecodedEvent[] = [];
      const waiting = new Set<string>();

      return {
        add(event) {
          const id = spec.rowId(event);
          if (waiting.has(id) || (!rows.has(id) && written.has(id))) {
            waiting.add(id);
            held.push(event);
            return;
          }
          foldOne(rows, event, changed, ++seen);
        },
        async endPage() {
          if (held.length > 0) {
            // Rows written earlier come back from the table when their events continue.
            quiet *= 2;
            await allWritten();
            await transaction(async (tx) => {
              for (const [id, row] of await load(tx, [...waiting])) rows.set(id, row);
            });
            for (const event of held) foldOne(rows, event, changed, ++seen);
            held = [];
            waiting.clear();
          }
          if (rows.size >= REPLAY_ROWS_IN_MEMORY) {
            // Too many rows changing at once: all of them are written before the replay goes on.
            await allWritten();
            await writeOut(takeQuiet(0), transaction, 1);
            rows = new Map();
            changed = new Map();
            return;
          }
          const quietRows = takeQuiet(quiet);
          if (quietRows.length === 0) return;
          if (writing.length >= REPLAY_PARALLEL_WRITES) await writing.shift();
          const write = writeOut(quietRows, transaction, 1);
          write.catch(() => undefined); // awaited later; not an unhandled rejection meanwhile
          writing.push(write);
        },
        async finish() {
          await allWritten();
          await writeOut(takeQuiet(0), transaction, REPLAY_PARALLEL_WRITES);
        },
        async abandon() {
          await Promise.allSettled(writing.splice(0));
        },
      };
    },
  };
}
