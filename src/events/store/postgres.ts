import { EventEmitter } from 'node:events';
import type { Logger } from '../../log.js';
import type { SqlClient, SqlPool } from '../../storage/pool.js';
import {
  StreamRevisionConflictError,
  type AppendResult,
  type EventStore,
  type NewEvent,
  type ReadAllOptions,
  type RecordedEvent,
  type StreamWrite,
} from './port.js';
import { pollingSubscription } from './subscription.js';

/*
 * Gap-free `$all`: every append (the `infraledger_append` function, migration 003) takes one
 * transaction-scoped advisory lock before positions are allocated and holds it until commit.
 * Positions therefore become visible in allocation order: a reader that sees position p has seen
 * every committed position below p, and no transaction still in flight can commit a lower one. (The
 * lock is released after the commit is visible in the proc array, so the next appender cannot
 * overtake it.) The append is one statement, so the serial section is one round trip plus the commit.
 */
const CHANNEL = 'infraledger_events';

interface EventRow {
  global_position: string;
  event_id: string;
  stream_id: string;
  stream_revision: string;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  recorded_at: Date;
}

const toRecorded = (row: EventRow): RecordedEvent => ({
  eventId: row.event_id,
  type: row.type,
  data: row.data,
  metadata: row.metadata,
  streamId: row.stream_id,
  streamRevision: BigInt(row.stream_revision),
  position: BigInt(row.global_position),
  recordedAt: row.recorded_at,
});

const COLUMNS = 'global_position, event_id, stream_id, stream_revision, type, data, metadata, recorded_at';

/** The PostgreSQL event store's pool, log and polling interval. */
export interface PostgresEventStoreOptions {
  readonly pool: SqlPool;
  readonly log?: Logger;
  /** How often a live subscription looks for new events when no wake-up arrived. */
  readonly pollIntervalMs?: number;
}

/** The event store on PostgreSQL, unchanged on a real server and on embedded PGlite. */
export function createPostgresEventStore(options: PostgresEventStoreOptions): EventStore {
  const { pool, log } = options;
  const appended = new EventEmitter();
  appended.setMaxListeners(0);
  let stopListening: Promise<() => Promise<void>> | undefined;

  // Other processes' appends arrive by NOTIFY (PostgreSQL only; PGlite has no other process).
  const ensureListening = (): void => {
    stopListening ??= pool
      .listen(CHANNEL, () => appended.emit('append'))
      .catch((error: unknown) => {
        log?.warn({ err: error }, 'LISTEN failed; subscriptions fall back to polling');
        return () => Promise.resolve();
      });
  };

  async function findExisting(db: Pick<SqlClient, 'query'>, eventIds: readonly string[]): Promise<EventRow[]> {
    const { rows } = await db.query<EventRow>(`SELECT ${COLUMNS} FROM events WHERE event_id = ANY($1::uuid[]) ORDER BY global_position`, [eventIds]);
    return rows;
  }

  /** A retry of a write that already committed: the same ids, in the same streams, in the same order. */
  function isSameWrite(writes: readonly StreamWrite[], existing: readonly EventRow[]): boolean {
    const expected = writes.flatMap((w) => w.events.map((e) => `${w.streamId}\u0000${e.eventId}`));
    return expected.length === existing.length && existing.every((row, i) => `${row.stream_id}\u0000${row.event_id}` === expected[i]);
  }

  function resultOf(rows: readonly EventRow[]): AppendResult {
    const revisions = new Map<string, bigint>();
    let position = 0n;
    for (const row of rows) {
      revisions.set(row.stream_id, BigInt(row.stream_revision));
      if (BigInt(row.global_position) > position) position = BigInt(row.global_position);
    }
    return { position, revisions };
  }

  async function appendMany(writes: readonly StreamWrite[]): Promise<AppendResult> {
    const all = writes.flatMap((w) => w.events);
    if (all.length === 0) throw new TypeError('appendMany needs at least one event');
    if (new Set(writes.map((w) => w.streamId)).size !== writes.length) throw new TypeError('appendMany takes each stream once');
    const result = await appendOnce(writes, all).catch(async (error: unknown) => {
      if ((error as { code?: string }).code !== '23505') throw error;
      // An event id is used already: only an exact retry of an earlier, committed write is accepted.
      const existing = await findExisting(pool, all.map((e) => e.eventId));
      if (isSameWrite(writes, existing)) return resultOf(existing);
      const first = writes[0];
      throw new StreamRevisionConflictError(first?.streamId ?? '', first?.expectedRevision ?? 'any', 'no_stream');
    });
    appended.emit('append');
    return result;
  }

  /** One statement (see migration 003): lock, check revisions, insert, notify. Zero-event writes only assert. */
  async function appendOnce(writes: readonly StreamWrite[], all: readonly NewEvent[]): Promise<AppendResult> {
    const eventStream = writes.flatMap((w, i) => w.events.map(() => i + 1));
    const { rows } = await pool.query<{ conflict_stream: string | null; conflict_actual: string | null; last_position: string | null; heads: string[] | null }>(
      'SELECT conflict_stream, conflict_actual::text, last_position::text, heads::text[] FROM infraledger_append($1, $2, $3, $4, $5, $6, $7)',
      [
        writes.map((w) => w.streamId),
        writes.map((w) => String(w.expectedRevision)),
        eventStream,
        all.map((e) => e.eventId),
        all.map((e) => e.type),
        all.map((e) => JSON.stringify(e.data)),
        all.map((e) => JSON.stringify(e.metadata)),
      ],
    );
    const row = rows[0];
    if (row?.conflict_stream != null) {
      const existing = await findExisting(pool, all.map((e) => e.eventId));
      if (existing.length > 0 && isSameWrite(writes, existing)) return resultOf(existing);
      const write = writes.find((w) => w.streamId === row.conflict_stream);
      throw new StreamRevisionConflictError(row.conflict_stream, write?.expectedRevision ?? 'any', row.conflict_actual == null ? 'no_stream' : BigInt(row.conflict_actual));
    }
    if (row?.last_position == null || !row.heads) throw new Error('infraledger_append returned no result');
    const heads = row.heads;
    return { position: BigInt(row.last_position), revisions: new Map(writes.map((w, i) => [w.streamId, BigInt(heads[i] ?? '-1')])) };
  }

  async function readAll({ after, limit }: ReadAllOptions): Promise<RecordedEvent[]> {
    const { rows } = await pool.query<EventRow>(`SELECT ${COLUMNS} FROM events WHERE global_position > $1 ORDER BY global_position LIMIT $2`, [
      String(after ?? 0n),
      limit,
    ]);
    return rows.map(toRecorded);
  }

  return {
    kind: pool.dialect,
    atomicMultiStream: true,
    append: (streamId: string, events: readonly NewEvent[], { expectedRevision }) => appendMany([{ streamId, expectedRevision, events }]),
    appendMany,
    async readStream(streamId) {
      const { rows } = await pool.query<EventRow>(`SELECT ${COLUMNS} FROM events WHERE stream_id = $1 ORDER BY stream_revision`, [streamId]);
      return rows.map(toRecorded);
    },
    readAll,
    async headPosition() {
      const { rows } = await pool.query<{ position: string | null }>('SELECT max(global_position)::text AS position FROM events');
      return rows[0]?.position == null ? undefined : BigInt(rows[0].position);
    },
    subscribe(subscribeOptions) {
      ensureListening();
      return pollingSubscription({
        readAll,
        wakeUps: appended,
        pollIntervalMs: options.pollIntervalMs ?? 1000,
        ...subscribeOptions,
      });
    },
    async truncate(streamId, beforeRevision) {
      if (beforeRevision === undefined) await pool.query('DELETE FROM events WHERE stream_id = $1', [streamId]);
      else await pool.query('DELETE FROM events WHERE stream_id = $1 AND stream_revision < $2', [streamId, String(beforeRevision)]);
    },
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      if (stopListening) await (await stopListening)();
      appended.removeAllListeners();
    },
  };
}
