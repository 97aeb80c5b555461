import { AppError } from '../../errors.js';

/**
 * The event store port: one contract, two adapters (PostgreSQL/PGlite and EventStoreDB).
 * Revisions are per stream and zero-based (the first event of a stream is revision 0n).
 * Positions are global, strictly increasing in the order events become visible to readers, and not
 * dense: the distance between two positions says nothing about the events between them.
 */
export type ExpectedRevision =
  | 'any' // append whatever the stream holds
  | 'no_stream' // the stream must not exist yet
  | 'stream_exists' // the stream must have at least one event
  | bigint; // the revision of the stream's last event

/** An event on its way into the store. `data` and `metadata` are already serialised-ready JSON. */
export interface NewEvent {
  /** UUID; appending the same ids again at the same place is an idempotent retry. */
  readonly eventId: string;
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** An event as the store holds it: its stream, revision, global position and time. */
export interface RecordedEvent extends NewEvent {
  readonly streamId: string;
  readonly streamRevision: bigint;
  readonly position: bigint;
  readonly recordedAt: Date;
}

/** Events to append to one stream, with the revision the stream must be at (none: a pure assertion). */
export interface StreamWrite {
  readonly streamId: string;
  readonly expectedRevision: ExpectedRevision;
  readonly events: readonly NewEvent[];
}

/** Where an append landed: the global position and each stream's new revision. */
export interface AppendResult {
  /** Global position of the last event written (or of the original write on an idempotent retry). */
  readonly position: bigint;
  /** For each written stream, the revision of its last event now. */
  readonly revisions: ReadonlyMap<string, bigint>;
}

/** A page of `$all`: after a position, at most `limit` events. */
export interface ReadAllOptions {
  /** Read events strictly after this position; undefined reads from the beginning. */
  readonly after?: bigint;
  readonly limit: number;
  /**
   * Only events of these types (every event when absent), still in position order: a page is empty
   * only when no such event follows `after`. A rebuild reads just its projection's events this way;
   * PostgreSQL filters before the rows leave the server.
   */
  readonly types?: readonly string[];
}

/** Where a subscription to `$all` starts and how it is fed. */
export interface SubscribeOptions {
  readonly after?: bigint;
  /** Largest batch handed to `onBatch` at once. */
  readonly batchSize?: number;
  /**
   * Awaited before the next batch is delivered (back-pressure). Throwing stops the subscription,
   * except UnconfirmedBatch for a batch that came with a `check`. `readAhead`, when given, lets the
   * consumer read the next page in a round trip of its own. A batch with a `check` comes without one:
   * the appends after it reach the subscription as this process's own too.
   */
  readonly onBatch: (events: readonly RecordedEvent[], readAhead?: PageReadAhead, check?: BatchCheck) => Promise<void>;
  /**
   * Offer this process's own appends as batches before they are read back, each with the check that
   * confirms it (BatchCheck). Only for a consumer that sends the check in the transaction of its
   * writes; stores that cannot (EventStoreDB) ignore it.
   */
  readonly ownAppends?: boolean;
}

/**
 * A batch built from this process's own appends without reading them back (`ownAppends`): the
 * consumer sends `statement()` in the transaction of what it writes for the batch, before anything
 * that depends on it commits. The statement fails (and so the transaction) unless the batch is
 * exactly the page the log holds after the previous batch and every position up to its end is final.
 * A consumer that cannot confirm the batch, for that reason or any other, throws UnconfirmedBatch
 * having kept nothing of it: the subscription then reads the page back and delivers that instead.
 *
 * Such a batch's events hold the data and metadata as the store holds them (JSON, object keys in the
 * store's order); `recordedAt` is this process's clock when the append returned, not the stored time.
 */
export interface BatchCheck {
  statement(): string;
}

/** Thrown by a consumer that did not confirm a batch that came with a check (BatchCheck). */
export class UnconfirmedBatch extends Error {
  constructor(options?: ErrorOptions) {
    super('the batch was not confirmed; read its page back', options);
    this.name = 'UnconfirmedBatch';
  }
}

/**
 * The read of the page after a batch, offered to a consumer that sends statements of its own to the
 * same database (PostgreSQL and PGlite; live delivery only): the projection hub sends `statement()`
 * after its batch's COMMIT, in the same message, and hands back what it answered. The subscription
 * then delivers that page without reading it. A consumer may ignore it; one that calls `statement()`
 * and never `accept` makes the subscription read at once.
 */
export interface PageReadAhead {
  /** The statement reading the page; asking for it starts the read (appends from now on are news). */
  statement(): string;
  /** The rows that statement answered. */
  accept(rows: readonly unknown[]): void;
}

/** A running subscription; `stop` ends it. */
export interface Subscription {
  /** Stops delivery; resolves once no `onBatch` call is running. */
  stop(): Promise<void>;
  /** Settles when the subscription ends: resolves after stop(), rejects with what ended it otherwise. */
  readonly done: Promise<void>;
}

/** The event store port: appends with expected revisions, stream and `$all` reads, subscriptions. */
export interface EventStore {
  readonly kind: 'postgres' | 'pglite' | 'eventstoredb';
  /** Appends to one stream, checking the expected revision. */
  append(streamId: string, events: readonly NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult>;
  /**
   * Appends to several streams. Atomic where the store can (PostgreSQL: one transaction); where it
   * cannot (EventStoreDB), writes go in order and `atomic` is false so callers can compensate.
   */
  appendMany(writes: readonly StreamWrite[], condition?: AppendCondition): Promise<AppendResult>;
  readonly atomicMultiStream: boolean;
  /**
   * Whether `appendMany` checks a condition in the append's own transaction (PostgreSQL and PGlite).
   * EventStoreDB cannot (its writes are not statements of ours): it refuses a condition.
   */
  readonly checksConditions: boolean;
  /** Every event of a stream in revision order; [] when the stream does not exist. */
  readStream(streamId: string): Promise<RecordedEvent[]>;
  /** Several streams at once (one round trip where the store can): each stream's events, [] for a missing one. */
  readStreams(streamIds: readonly string[]): Promise<Map<string, RecordedEvent[]>>;
  /** Events of all streams in position order. Gap-free: never passes an event that may still commit. */
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  /**
   * The page readAll would answer, handed to `onEvent` one event at a time as it arrives instead of
   * collected (PostgreSQL streams the rows; EventStoreDB reads the page, then hands it over), so a
   * reader that keeps little of each event leaves little for the garbage collector: a rebuild folds
   * each one into its rows at once. Answers how many events it handed over. An error `onEvent`
   * throws stops the handing over and rejects with that error.
   */
  readAllEach(options: ReadAllOptions, onEvent: (event: RecordedEvent) => void): Promise<number>;
  /**
   * Position of the newest event a gap-free reader may pass (see readAll), or undefined when the
   * store is empty: a reader starting after it misses nothing committed later.
   */
  headPosition(): Promise<bigint | undefined>;
  /**
   * Position of the newest committed event, or undefined when the store is empty. It can be ahead of
   * headPosition while an older write is still committing: waiting for a read model to reach it
   * covers every write committed before the call, which headPosition does not.
   */
  lastPosition(): Promise<bigint | undefined>;
  /**
   * How many visible events follow `after` (all of them when undefined), counting at most `limit`:
   * how far a reader at `after` is behind. Positions are not dense (they need not count events).
   * With `types`, only events of those types count (what a reader filtering as readAll does has left).
   */
  countAfter(after: bigint | undefined, limit: number, types?: readonly string[]): Promise<number>;
  /** Catch-up then live delivery of `$all`, in position order, each event exactly once. */
  subscribe(options: SubscribeOptions): Subscription;
  /**
   * Removes the stream's events below `beforeRevision` (every event when it is undefined) from the
   * stream and from `$all`; later appends continue the stream's revisions. Only for streams no
   * projection needs again: superseded reference records (compaction) and sign-in attempts past
   * their retention. PostgreSQL deletes the rows; EventStoreDB sets the stream's `$tb` (truncate
   * before) and its scavenge reclaims the space.
   */
  truncate(streamId: string, beforeRevision?: bigint): Promise<void>;
  /** Answers whether the store is reachable (for /readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A fact of the read model an append must find true in its own transaction, or write nothing (then
 * it fails with AppendConditionError). Used for a REST write whose caller is not confirmed yet: the
 * append checks that the caller's session still looks as this replica last read it
 * (docs/decisions/0003-speculative-session-check.md).
 */
export interface AppendCondition {
  /** A boolean SQL expression whose parameters are numbered from `first`, in `parameters`' order. */
  readonly sql: (first: number) => string;
  readonly parameters: readonly string[];
}

/** The append's condition did not hold: nothing was written. */
export class AppendConditionError extends Error {
  constructor(options?: ErrorOptions) {
    super("the append's condition did not hold; nothing was written", options);
    this.name = 'AppendConditionError';
  }
}

/** The stream's revision is not the one the writer expected. Retried by the command handler. */
export class StreamRevisionConflictError extends AppError {
  readonly streamId: string;
  readonly expected: ExpectedRevision;
  readonly actual: bigint | 'no_stream';

  constructor(streamId: string, expected: ExpectedRevision, actual: bigint | 'no_stream') {
    super(
      'CONCURRENT_MODIFICATION',
      `stream ${streamId} was modified concurrently (expected ${String(expected)}, found ${String(actual)})`,
      {
        details: { streamId },
      },
    );
    this.streamId = streamId;
    this.expected = expected;
    this.actual = actual;
  }
}

/** Checks an expected revision against the stream's current one (undefined = no stream). */
export function revisionMatches(expected: ExpectedRevision, current: bigint | undefined): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return current === undefined;
  if (expected === 'stream_exists') return current !== undefined;
  return current === expected;
}
