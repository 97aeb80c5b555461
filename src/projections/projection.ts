import type { SqlClient } from '../storage/pool.js';
import type { DecodedEvent } from '../events/codec.js';

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
  applyBatch(tx: SqlClient, events: readonly DecodedEvent[]): Promise<void>;
  /**
   * Optional, for rebuilds: a replay of every event, in order, into the projection's empty tables
   * (a shadow schema on the search path), which may keep state in memory and write it set-based.
   * Without it a rebuild replays through `applyBatch`.
   */
  replay?(): ProjectionReplay;
}

/** One rebuild's replay of a projection: `apply` for each page of its events, then `finish` once. */
export interface ProjectionReplay {
  apply(tx: SqlClient, events: readonly DecodedEvent[]): Promise<void>;
  finish(tx: SqlClient): Promise<void>;
}
