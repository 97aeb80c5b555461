import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Logger } from '../../log.js';
import { arrayLiteral } from '../../storage/literals.js';
import type { SqlClient, SqlPool } from '../../storage/pool.js';
import { PLAN_EACH_CALL } from '../../storage/prepared.js';
import {
  AppendConditionError,
  StreamRevisionConflictError,
  type AppendCondition,
  type AppendResult,
  type EventStore,
  type NewEvent,
  type ReadAllOptions,
  type RecordedEvent,
  type StreamWrite,
} from './port.js';
import { parseAsStored } from './as-stored.js';
import { ELSEWHERE, pollingSubscription, type ReadPage } from './subscription.js';

/*
 * Gap-free `$all` without a serial section (migration 026, docs/decisions/0006-concurrent-append.md):
 * an event's position is its transaction's id times 65,536 plus its ordinal in that transaction, so
 * positions follow transaction ids. Every transaction whose id is below the snapshot's xmin has ended,
 * so a reader that stops below `xmin × 65,536` has seen every event that will ever hold a lower
 * position: it never passes one that could still commit, whichever append commits first.
 */
const CHANNEL = 'infraledger_events';

/**
 * Least time between two NOTIFYs of one store. Other processes' subscriptions wake at most this much
 * later (they poll as well, PostgresEventStoreOptions.pollIntervalMs); this process's own are woken
 * by the append itself.
 */
const NOTIFY_INTERVAL_MS = 10;

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

/** A page's row: an event, or the marker row saying committed events wait beyond the page. */
type PageRow = EventRow & { held: boolean };

/** A page's rows as the page (the marker row, when there is one, is the last). */
function pageOf(rows: readonly PageRow[]): ReadPage {
  const held = rows.at(-1)?.held === true;
  return { events: (held ? rows.slice(0, -1) : rows).map(toRecorded), held };
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

/** What the append functions answer for a write: its conflict, or its last position and each stream's head. */
interface AppendRow {
  conflict_stream: string | null;
  conflict_actual: string | null;
  last_position: string | null;
  heads: string[] | null;
}

/** The same for one write of a group (1-based). */
interface GroupRow extends AppendRow {
  grp: number;
}

/**
 * The most writes one grouped append carries. Bounded so one statement stays small and a write never
 * waits behind more than this many others (their events are few: a command writes a handful).
 */
const MAX_GROUP = 64;

const COLUMNS = 'global_position, event_id, stream_id, stream_revision, type, data, metadata, recorded_at';

/**
 * `readable.below`: every position below it is final, as this statement's snapshot sees the log
 * (`infraledger_readable_below`, migration 039, where the bound is explained), the probe beyond it
 * starting after $1.
 */
const READABLE = 'readable AS MATERIALIZED (SELECT infraledger_readable_below($1::bigint) AS below)';

/**
 * A page of readable events after $1, plus one marker row when committed events wait beyond the
 * readable bound (both parts see the same snapshot, so the marker is exact for it). The probes beyond
 * the bound start at the greater of the two lower bounds, as one index condition: with two separate
 * conditions the planner scanned the whole table from $1 (O(log size) per read instead of O(size)).
 * The page of every type is `infraledger_read_page` (migrations 038 and 039, the same statement as a function,
 * so that the projection hub can send it in its batch's message); this one reads the types in $3 only
 * (a rebuild's read), planned per call: how many events are of those types decides between walking
 * the log in order and gathering them first.
 */
const READ_PAGE_OF_TYPES = `WITH ${READABLE}
(SELECT ${COLUMNS}, false AS held FROM events WHERE global_position > $1 AND global_position < (SELECT below FROM readable)
  AND type = ANY($3::text[]) ORDER BY global_position LIMIT $2)
UNION ALL
SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, true FROM readable
 WHERE (SELECT global_position FROM events WHERE global_position >= greatest($1::bigint + 1, readable.below)
          ORDER BY global_position LIMIT 1) IS NOT NULL ${PLAN_EACH_CALL}`;

/** The page of every type after `after` (see READ_PAGE_OF_TYPES), with its parameters or written inline. */
const READ_PAGE = `SELECT ${COLUMNS}, held FROM infraledger_read_page($1, $2)`;
const readPageInline = (after: bigint | undefined, limit: number): string =>
  `SELECT ${COLUMNS}, held FROM infraledger_read_page(${String(after ?? 0n)}, ${String(Math.trunc(limit))})`;

/** Events with their data and metadata as the JSON texts an append sends. */
interface EncodedEvents {
  readonly events: readonly NewEvent[];
  readonly data: readonly string[];
  readonly metadata: readonly string[];
}

const encode = (events: readonly NewEvent[]): EncodedEvents => ({
  events,
  data: events.map((e) => JSON.stringify(e.data)),
  metadata: events.map((e) => JSON.stringify(e.metadata)),
});

/**
 * The arguments both append functions share (migrations 026, 028): the streams, their expected
 * revisions, each event's stream (1-based) and the events' columns. Arrays go as literals of our own:
 * node-postgres would run two patterns over every element, the events' JSON documents included.
 */
function appendArguments(streams: readonly StreamWrite[], eventStream: readonly number[], encoded: EncodedEvents): string[] {
  return [
    arrayLiteral(streams.map((w) => w.streamId)),
    arrayLiteral(streams.map((w) => String(w.expectedRevision))),
    `{${eventStream.join(',')}}`,
    arrayLiteral(encoded.events.map((e) => e.eventId)),
    arrayLiteral(encoded.events.map((e) => e.type)),
    arrayLiteral(encoded.data),
    arrayLiteral(encoded.metadata),
  ];
}

/**
 * An event of this process's append as the log now holds it (port.ts, BatchCheck): its data and
 * metadata parsed from the texts the append sent when first asked for, as stored jsonb reads back
 * (./as-stored.ts). Most events of a batch are never decoded (a name's reservation concerns no
 * projection), so most are never parsed.
 */
class CommittedEvent implements RecordedEvent {
  private parsedData: Record<string, unknown> | undefined;
  private parsedMetadata: Record<string, unknown> | undefined;

  constructor(
    readonly eventId: string,
    readonly type: string,
    readonly streamId: string,
    readonly streamRevision: bigint,
    readonly position: bigint,
    readonly recordedAt: Date,
    private readonly dataText: string,
    private readonly metadataText: string,
  ) {}

  get data(): Record<string, unknown> {
    return (this.parsedData ??= parseAsStored(this.dataText) as Record<string, unknown>);
  }

  get metadata(): Record<string, unknown> {
    return (this.parsedMetadata ??= parseAsStored(this.metadataText) as Record<string, unknown>);
  }
}

/**
 * The events of one write that committed: an append gives a write's events consecutive positions
 * ending at `last`, in the order sent, and each stream's events consecutive revisions ending at its
 * head (migrations 026, 028). `from` is the write's first event in `encoded`.
 */
function recordedOf(
  writes: readonly StreamWrite[],
  heads: readonly string[],
  last: bigint,
  encoded: EncodedEvents,
  from: number,
): RecordedEvent[] {
  const count = writes.reduce((n, w) => n + w.events.length, 0);
  const recordedAt = new Date();
  const recorded: RecordedEvent[] = [];
  let position = last - BigInt(count) + 1n;
  let index = from;
  writes.forEach((write, i) => {
    let revision = BigInt(heads[i] ?? '-1') - BigInt(write.events.length) + 1n;
    for (const event of write.events) {
      const data = encoded.data[index] ?? '{}';
      const metadata = encoded.metadata[index] ?? '{}';
      recorded.push(new CommittedEvent(event.eventId, event.type, write.streamId, revision++, position++, recordedAt, data, metadata));
      index++;
    }
  });
  return recorded;
}

/** What `infraledger_checked` raises when an append's condition does not hold (migration 040). */
const CONDITION_FAILED = 'IL002';

/**
 * The append's stream ids argument (`placeholder`), passed through `infraledger_checked` (migration
 * 040) when writes ask for conditions: the conditions, each once (the writes of one caller share
 * one condition object), are evaluated in the append's statement before anything is written. Their
 * parameters are numbered from `first`. Undefined without conditions.
 */
function checkedArgument(
  placeholder: string,
  first: number,
  conditions: readonly (AppendCondition | undefined)[],
): { text: string; parameters: string[] } | undefined {
  const distinct = new Set<AppendCondition>();
  for (const condition of conditions) if (condition) distinct.add(condition);
  if (distinct.size === 0) return undefined;
  const parameters: string[] = [];
  const tests: string[] = [];
  for (const condition of distinct) {
    tests.push(`(${condition.sql(first + parameters.length)})`);
    parameters.push(...condition.parameters);
  }
  return { text: `infraledger_checked(${tests.join(' AND ')}, ${placeholder})`, parameters };
}

/** The append of one write (migrations 026, 028), its stream ids argument written as `streams`. */
const appendAloneText = (streams: string): string =>
  'SELECT conflict_stream, conflict_actual::text, last_position::text, heads::text[] ' +
  `FROM infraledger_append(${streams}, $2, $3, $4, $5, $6, $7)`;
/** The same for a group of writes (migration 028). */
const appendGroupsText = (streams: string): string =>
  'SELECT grp, conflict_stream, conflict_actual::text, last_position::text, heads::text[] ' +
  `FROM infraledger_append_groups($1, ${streams}, $3, $4, $5, $6, $7, $8)`;
const APPEND_ALONE = appendAloneText('$1');
const APPEND_GROUPS = appendGroupsText('$2');

/**
 * The text of one write's append checked by `condition`, built once per condition object (one per
 * caller's session version): the same text object every time, so that the prepared-statement names
 * look up a text whose hash is kept rather than a new one of a kilobyte or two per append.
 */
const checkedAloneTexts = new WeakMap<AppendCondition, string>();
function appendAloneTextFor(condition: AppendCondition): string {
  let text = checkedAloneTexts.get(condition);
  if (text === undefined) {
    text = appendAloneText(checkedArgument('$1', 8, [condition])?.text ?? '$1');
    checkedAloneTexts.set(condition, text);
  }
  return text;
}

/** The statement confirming a batch of own appends (port.ts BatchCheck; migration 041). */
const confirmPageInline = (after: bigint | undefined, last: bigint, count: number): string =>
  `SELECT infraledger_confirm_page(${String(after ?? 0n)}, ${String(last)}, ${String(Math.trunc(count))})`;

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
  /** This store's NOTIFY payload, so that it can tell its own notifications from other processes'. */
  const self = randomUUID();
  appended.setMaxListeners(0);
  let stopListening: Promise<() => Promise<void>> | undefined;

  // Other processes' appends arrive by NOTIFY (PostgreSQL only; PGlite has no other process).
  const ensureListening = (): void => {
    stopListening ??= pool
      // This store's own notifications say what its appends said already.
      .listen(CHANNEL, (payload) => {
        if (payload !== self) appended.emit('append', ELSEWHERE);
      })
      .catch((error: unknown) => {
        log?.warn({ err: error }, 'LISTEN failed; subscriptions fall back to polling');
        return () => Promise.resolve();
      });
  };

  async function findExisting(db: Pick<SqlClient, 'query'>, eventIds: readonly string[]): Promise<EventRow[]> {
    const { rows } = await db.query<EventRow>(
      `SELECT ${COLUMNS} FROM events WHERE event_id = ANY($1::uuid[]) ORDER BY global_position ${PLAN_EACH_CALL}`,
      [eventIds],
    );
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

  /** One command's write waiting for the append on its way (group commit). */
  interface Queued {
    readonly writes: readonly StreamWrite[];
    readonly condition: AppendCondition | undefined;
    readonly resolve: (result: AppendResult) => void;
    readonly reject: (error: unknown) => void;
  }
  const queued: Queued[] = [];
  let appending = false;

  /**
   * The events this process's appends committed since the last wake-up, for subscriptions that take
   * them before reading them back (`ownAppends`, port.ts BatchCheck); kept only while one listens.
   */
  const committedHere: RecordedEvent[] = [];
  function keep(writes: readonly StreamWrite[], row: AppendRow | undefined, encoded: EncodedEvents, from: number): void {
    if (appended.listenerCount('committed') === 0 || !row || row.conflict_stream != null || row.last_position == null || !row.heads) return;
    committedHere.push(...recordedOf(writes, row.heads, BigInt(row.last_position), encoded, from));
  }

  /**
   * Group commit: a write goes at once when no append is on its way; otherwise it waits for that one,
   * and every write that waited goes together in one statement and one transaction
   * (`infraledger_append_groups`, migration 028), each still checked on its own. An idle service
   * sends each write alone as before; a busy one pays one round trip and one commit for several.
   */
  function appendMany(writes: readonly StreamWrite[], condition?: AppendCondition): Promise<AppendResult> {
    if (writes.every((w) => w.events.length === 0)) return Promise.reject(new TypeError('appendMany needs at least one event'));
    if (new Set(writes.map((w) => w.streamId)).size !== writes.length)
      return Promise.reject(new TypeError('appendMany takes each stream once'));
    return new Promise<AppendResult>((resolve, reject) => {
      queued.push({ writes, condition, resolve, reject });
      if (!appending) void drain();
    });
  }

  async function drain(): Promise<void> {
    appending = true;
    try {
      while (queued.length > 0) {
        const group = queued.splice(0, MAX_GROUP);
        const [only] = group;
        if (group.length === 1 && only) await appendAlone(only).then(only.resolve, only.reject);
        else await appendGroup(group);
        if (committedHere.length > 0) appended.emit('committed', committedHere.splice(0));
        appended.emit('append');
        notifyOthers();
      }
    } finally {
      appending = false;
    }
  }

  /** One write in its own statement; an event id used already is accepted only as an exact retry. */
  async function appendAlone({ writes, condition }: Pick<Queued, 'writes' | 'condition'>): Promise<AppendResult> {
    const all = writes.flatMap((w) => w.events);
    return appendOnce(writes, all, condition).catch(async (error: unknown) => {
      const code = (error as { code?: string }).code;
      if (code === CONDITION_FAILED) throw new AppendConditionError({ cause: error });
      if (code !== '23505') throw error;
      // An event id is used already: only an exact retry of an earlier, committed write is accepted.
      const existing = await findExisting(
        pool,
        all.map((e) => e.eventId),
      );
      if (isSameWrite(writes, existing)) return resultOf(existing);
      const first = writes[0];
      throw new StreamRevisionConflictError(first?.streamId ?? '', first?.expectedRevision ?? 'any', 'no_stream');
    });
  }

  /**
   * Several commands' writes in one statement. If the statement fails as a whole (an event id used
   * already, a lost connection), each write is appended alone, so each gets the answer it would have
   * had on its own: the writes' event ids make a write that did commit an accepted retry. The writes'
   * conditions are checked together, so one that fails fails the group: each write then gets its own.
   */
  async function appendGroup(group: readonly Queued[]): Promise<void> {
    const streams = group.flatMap((q, g) => q.writes.map((w) => ({ write: w, group: g + 1 })));
    const events = streams.flatMap(({ write }, s) => write.events.map((e) => ({ event: e, stream: s + 1 })));
    const encoded = encode(events.map((e) => e.event));
    const checked = checkedArgument(
      '$2',
      9,
      group.map((q) => q.condition),
    );
    const text = checked === undefined ? APPEND_GROUPS : appendGroupsText(checked.text);
    let rows: GroupRow[];
    try {
      ({ rows } = await pool.query<GroupRow>(text, [
        `{${streams.map((s) => s.group).join(',')}}`,
        ...appendArguments(
          streams.map((s) => s.write),
          events.map((e) => e.stream),
          encoded,
        ),
        ...(checked?.parameters ?? []),
      ]));
    } catch (error) {
      log?.debug({ err: error, writes: group.length }, 'a grouped append failed; appending its writes one by one');
      for (const q of group) await appendAlone(q).then(q.resolve, q.reject);
      return;
    }
    let from = 0;
    for (const [g, q] of group.entries()) {
      keep(
        q.writes,
        rows.find((r) => r.grp === g + 1),
        encoded,
        from,
      );
      from += q.writes.reduce((n, w) => n + w.events.length, 0);
    }
    await Promise.all(
      group.map(async (q, g) => {
        const row = rows.find((r) => r.grp === g + 1);
        try {
          q.resolve(
            await settle(
              q.writes,
              q.writes.flatMap((w) => w.events),
              row,
            ),
          );
        } catch (error) {
          q.reject(error);
        }
      }),
    );
  }

  // Other processes learn of appends by NOTIFY, sent after the commit in a statement of its own (a
  // notifying transaction holds a server-wide lock through its commit), at most one at a time and at
  // most one per NOTIFY_INTERVAL_MS: appends that commit meanwhile are covered by the next. On a busy
  // service that is one statement per several appends instead of one per append or two.
  let notifying: 'idle' | 'waiting' | 'sending' | 'again' = 'idle';
  let notifyTimer: NodeJS.Timeout | undefined;
  let closed = false;
  function notifyOthers(): void {
    if (pool.dialect !== 'postgres') return;
    if (notifying === 'sending') notifying = 'again';
    if (notifying !== 'idle') return;
    notifying = 'waiting';
    const send = (): void => {
      notifyTimer = undefined;
      notifying = 'sending';
      pool
        .query('SELECT pg_notify($1, $2)', [CHANNEL, self])
        .catch((error: unknown) => log?.warn({ err: error }, 'NOTIFY failed; other processes find the events by polling'))
        .finally(() => {
          if (notifying === 'again' && !closed) {
            notifying = 'waiting';
            notifyTimer = setTimeout(send, NOTIFY_INTERVAL_MS);
          } else {
            notifying = 'idle';
          }
        });
    };
    notifyTimer = setTimeout(send, NOTIFY_INTERVAL_MS);
  }

  /** One statement (migrations 026, 028): lock the streams, check revisions, insert. Zero-event writes only assert. */
  async function appendOnce(writes: readonly StreamWrite[], all: readonly NewEvent[], condition?: AppendCondition): Promise<AppendResult> {
    const eventStream = writes.flatMap((w, i) => w.events.map(() => i + 1));
    const encoded = encode(all);
    const { rows } = await pool.query<AppendRow>(condition === undefined ? APPEND_ALONE : appendAloneTextFor(condition), [
      ...appendArguments(writes, eventStream, encoded),
      ...(condition?.parameters ?? []),
    ]);
    keep(writes, rows[0], encoded, 0);
    return settle(writes, all, rows[0]);
  }

  /** A write's answer from its row: its position and heads, or its conflict (unless it is a retry of a write that committed). */
  async function settle(writes: readonly StreamWrite[], all: readonly NewEvent[], row: AppendRow | undefined): Promise<AppendResult> {
    if (row?.conflict_stream != null) {
      const existing = await findExisting(
        pool,
        all.map((e) => e.eventId),
      );
      if (existing.length > 0 && isSameWrite(writes, existing)) return resultOf(existing);
      const write = writes.find((w) => w.streamId === row.conflict_stream);
      throw new StreamRevisionConflictError(
        row.conflict_stream,
        write?.expectedRevision ?? 'any',
        row.conflict_actual == null ? 'no_stream' : BigInt(row.conflict_actual),
      );
    }
    if (row?.last_position == null || !row.heads) throw new Error('the append function returned no result');
    const heads = row.heads;
    return { position: BigInt(row.last_position), revisions: new Map(writes.map((w, i) => [w.streamId, BigInt(heads[i] ?? '-1')])) };
  }

  /** The page statement readAll and readAllEach run, with its parameters. */
  const pageStatement = ({ after, limit, types }: ReadAllOptions): [string, unknown[]] =>
    types === undefined ? [READ_PAGE, [String(after ?? 0n), limit]] : [READ_PAGE_OF_TYPES, [String(after ?? 0n), limit, types]];

  async function readPage(options: ReadAllOptions): Promise<ReadPage> {
    const { rows } = await pool.query<PageRow>(...pageStatement(options));
    return pageOf(rows);
  }

  const readAll = async (options: ReadAllOptions): Promise<RecordedEvent[]> => (await readPage(options)).events;

  async function readAllEach(options: ReadAllOptions, onEvent: (event: RecordedEvent) => void): Promise<number> {
    const [text, params] = pageStatement(options);
    let handed = 0;
    await pool.queryEach<PageRow>(text, params, (row) => {
      if (row.held) return; // the marker row: nothing to hand over
      onEvent(toRecorded(row));
      handed++;
    });
    return handed;
  }

  return {
    kind: pool.dialect,
    atomicMultiStream: true,
    checksConditions: true,
    append: (streamId: string, events: readonly NewEvent[], { expectedRevision }) => appendMany([{ streamId, expectedRevision, events }]),
    appendMany,
    async readStream(streamId) {
      // Planned per call, as the other lookups of the log by stream or id (PLAN_EACH_CALL says why).
      const { rows } = await pool.query<EventRow>(
        `SELECT ${COLUMNS} FROM events WHERE stream_id = $1 ORDER BY stream_revision ${PLAN_EACH_CALL}`,
        [streamId],
      );
      return rows.map(toRecorded);
    },
    async readStreams(streamIds) {
      const streams = new Map<string, RecordedEvent[]>(streamIds.map((id) => [id, []]));
      if (streamIds.length === 0) return streams;
      const { rows } = await pool.query<EventRow>(
        `SELECT ${COLUMNS} FROM events WHERE stream_id = ANY($1::text[]) ORDER BY stream_id, stream_revision ${PLAN_EACH_CALL}`,
        [[...new Set(streamIds)]],
      );
      for (const row of rows) streams.get(row.stream_id)?.push(toRecorded(row));
      return streams;
    },
    readAll,
    readAllEach,
    async headPosition() {
      const { rows } = await pool.query<{ position: string | null }>(
        // Not max(): PostgreSQL turns max() into one probe of the index only in a query without CTEs;
        // with them it read every event (0.2 s at 100,000, on every readiness probe).
        `WITH ${READABLE} SELECT global_position::text AS position FROM events WHERE global_position < (SELECT below FROM readable) ` +
          'ORDER BY global_position DESC LIMIT 1',
        ['0'],
      );
      return rows[0]?.position == null ? undefined : BigInt(rows[0].position);
    },
    async lastPosition() {
      const { rows } = await pool.query<{ position: string | null }>('SELECT max(global_position)::text AS position FROM events');
      return rows[0]?.position == null ? undefined : BigInt(rows[0].position);
    },
    async countAfter(after, limit, types) {
      const ofTypes = types === undefined ? '' : ` AND type = ANY($3::text[]) ${PLAN_EACH_CALL}`;
      const { rows } = await pool.query<{ n: number }>(
        `WITH ${READABLE} SELECT count(*)::int AS n FROM (SELECT 1 FROM events WHERE global_position > $1 AND global_position < ` +
          `(SELECT below FROM readable)${ofTypes} LIMIT $2) AS ahead`,
        [String(after ?? 0n), limit, ...(types === undefined ? [] : [types])],
      );
      return rows[0]?.n ?? 0;
    },
    subscribe(subscribeOptions) {
      ensureListening();
      return pollingSubscription({
        readPage,
        wakeUps: appended,
        pollIntervalMs: options.pollIntervalMs ?? 1000,
        readAhead: { statement: readPageInline, page: (rows) => pageOf(rows as PageRow[]) },
        confirmStatement: confirmPageInline,
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
      closed = true;
      clearTimeout(notifyTimer);
      if (stopListening) await (await stopListening)();
      appended.removeAllListeners();
    },
  };
}
