import type { SqlClient } from '../storage/pool.js';
import type { DecodedEvent } from '../events/codec.js';

/**
 * The transaction a batch is applied in. `write` runs a statement whose answer the projection does
 * not read: the hub may hold it and send it with the transaction's next statement or its COMMIT, in
 * one round trip (its `query` sends whatever is held first, so reads see every write before them).
 * A held statement's error surfaces by the end of the batch, failing the batch as `applyBatch`
 * throwing would. Its parameters are written into the text (src/storage/literals.ts): text, numbers
 * and booleans only.
 */
export interface BatchClient extends SqlClient {
  write(text: string, params?: readonly unknown[], options?: WriteOptions): Promise<void>;
}

/** What a held write lets the hub do with it. */
export interface WriteOptions {
  /**
   * The statement's plan cannot depend on what the tables hold: it inserts the rows it is given, a
   * conflict decided by a unique index, and reads no table otherwise. The hub may then prepare it
   * once per connection and keep its one generic plan (./held-writes.ts); a statement that reads a
   * table (an UPDATE or DELETE by key, a join) must be planned for the table as it is now.
   */
  readonly planOnce?: boolean;
}

/** `write`'s options for an insert of given rows (WriteOptions.planOnce). */
export const PLAN_ONCE: WriteOptions = { planOnce: true };

/** A transaction as a BatchClient whose writes run at once (rebuilds, tests, the careful retry of a failed batch). */
export const writingAtOnce = (tx: SqlClient): BatchClient => ({
  query: (text, params) => tx.query(text, params),
  release: (destroy) => tx.release(destroy),
  write: async (text, params) => {
    await tx.query(text, params);
  },
});

/**
 * A read model kept from the event stream. `applyBatch` runs inside the runner's transaction, which
 * also moves the checkpoint, so a batch takes effect exactly once. It must also be idempotent on its
 * own (a rebuild test replays every event twice).
 */
export interface Projection {
  readonly name: string;
  /** Every table the projection owns, in dependency order (rebuilds copy and swap these). */
  readonly tables: readonly string[];
  /** Event types it reads; others only move its checkpoint. */
  readonly handles: ReadonlySet<string>;
  applyBatch(tx: BatchClient, events: readonly DecodedEvent[]): Promise<void>;
  /**
   * Optional, for rebuilds: a replay of every event, in order, into the projection's empty tables
   * (a shadow schema on the search path), which may keep state in memory and write it set-based in
   * transactions it opens through `transaction`. Without it a rebuild replays through `applyBatch`,
   * a page at a time.
   */
  replay?(transaction: ReplayTransaction, tuning?: ReplayTuning): ProjectionReplay;
}

/** How a replay trades memory for early writes; tests set it low to take every path on a short log. */
export interface ReplayTuning {
  /** Events without a change after which a row may be written out before the replay ends. */
  readonly quietEvents?: number;
}

/**
 * Opens a transaction on the replay's tables. Calls may overlap: each runs on a connection of its own
 * (on PGlite, one connection, they take turns).
 */
export type ReplayTransaction = (work: (tx: SqlClient) => Promise<void>) => Promise<void>;

/**
 * One rebuild's replay of a projection: `add` for each of its events in order, as they are read;
 * `endPage` after each page of them; then `finish` once. It reads and writes its tables in
 * transactions of its own (the replay's `transaction`); all have committed when `finish` answers. A
 * failed rebuild calls `abandon`, then drops the shadow schema and everything in it.
 */
export interface ProjectionReplay {
  /** Takes the next event (folding it at once where it can, so that nothing keeps the event itself). */
  add(event: DecodedEvent): void;
  /** Ends a page: applies what `add` could not yet (loading rows back), writes out what it chooses to. */
  endPage(): Promise<void>;
  finish(): Promise<void>;
  /**
   * Gives the replay up (the rebuild failed): resolves once none of its writes is still running,
   * whatever became of them, so that nothing of a failed rebuild outlives it.
   */
  abandon(): Promise<void>;
}
