import { withTransaction, type SqlPool } from '../db/pool.js';
import type { EventCodec } from '../events/codec.js';
import type { EventStore } from '../events/store/port.js';
import type { Logger } from '../log.js';
import type { Projection } from './projection.js';
import { applyEvents, projectionLockKey } from './runner.js';

export interface RebuildDeps {
  readonly pool: SqlPool;
  readonly store: EventStore;
  readonly codec: EventCodec;
  readonly log: Logger;
  readonly batchSize: number;
}

export interface RebuildResult {
  readonly projection: string;
  readonly events: number;
  readonly position: bigint | undefined;
}

/**
 * Replays every event into empty copies of the projection's tables in a shadow schema, then swaps
 * them in under the projection's lock and moves its checkpoint to where the replay ended. Reads keep
 * answering from the old tables the whole time; the live runner resyncs from the new checkpoint and
 * applies whatever arrived during the swap. A failed (poisoned) projection starts running again.
 */
export async function rebuildProjection(deps: RebuildDeps, projection: Projection): Promise<RebuildResult> {
  if (!/^[a-z_]+$/.test(projection.name)) throw new TypeError(`projection name ${projection.name} is not a safe schema name`);
  const shadow = `rebuild_${projection.name}`;
  const started = Date.now();
  await deps.pool.query(
    [`DROP SCHEMA IF EXISTS ${shadow} CASCADE`, `CREATE SCHEMA ${shadow}`, ...projection.tables.map((t) => `CREATE TABLE ${shadow}.${t} (LIKE public.${t} INCLUDING ALL)`)].join(';\n'),
  );
  let after: bigint | undefined;
  let count = 0;
  for (;;) {
    const events = await deps.store.readAll({ after, limit: deps.batchSize });
    const last = events.at(-1);
    if (!last) break;
    await withTransaction(deps.pool, async (tx) => {
      await tx.query(`SET LOCAL search_path TO ${shadow}, public`);
      await applyEvents(tx, projection, deps.codec, events);
    });
    after = last.position;
    count += events.length;
  }
  await withTransaction(deps.pool, async (tx) => {
    // Waits for a batch the live runner may be applying, and keeps it out until the swap commits.
    await tx.query('SELECT pg_advisory_xact_lock($1)', [projectionLockKey(projection.name)]);
    for (const table of [...projection.tables].reverse()) await tx.query(`DROP TABLE public.${table}`);
    for (const table of projection.tables) await tx.query(`ALTER TABLE ${shadow}.${table} SET SCHEMA public`);
    await tx.query(`DROP SCHEMA ${shadow}`);
    await tx.query(
      `INSERT INTO projection_checkpoints (name, position, status, error, failed_event_id, updated_at) VALUES ($1, $2, 'running', NULL, NULL, now())
       ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, status = 'running', error = NULL, failed_event_id = NULL, updated_at = now()`,
      [projection.name, after === undefined ? null : String(after)],
    );
  });
  deps.log.info({ projection: projection.name, events: count, position: String(after), ms: Date.now() - started }, 'projection rebuilt');
  return { projection: projection.name, events: count, position: after };
}
