import { randomBytes, randomUUID } from 'node:crypto';
import type { CommandDeps } from '../../src/commands/handler.js';
import type { SqlClient, SqlPool } from '../../src/storage/pool.js';
import { allEventDefinitions } from '../../src/events/catalog.js';
import { createEventCodec, type EventCodec } from '../../src/events/codec.js';
import { createKeyring } from '../../src/events/crypto.js';
import type { EventStore, ReadAllOptions, RecordedEvent } from '../../src/events/store/port.js';
import { createPostgresEventStore } from '../../src/events/store/postgres.js';
import { createLogger, type Logger } from '../../src/log.js';
import type { DatabaseTarget, TestDatabase } from './databases.js';

/** Event store, codec and command deps over a fresh database: the write side without HTTP. */
export interface Spine {
  readonly db: TestDatabase;
  readonly pool: SqlPool;
  readonly store: EventStore;
  readonly codec: EventCodec;
  readonly deps: CommandDeps;
  readonly log: Logger;
  close(): Promise<void>;
}

export async function openSpine(target: DatabaseTarget): Promise<Spine> {
  const db = await target.create();
  const log = createLogger({ level: 'silent' });
  const store = createPostgresEventStore({ pool: db.pool, pollIntervalMs: 20 });
  const codec = createEventCodec(allEventDefinitions, createKeyring({ active: randomBytes(32) }));
  return {
    db,
    pool: db.pool,
    store,
    codec,
    log,
    deps: { store, codec, newId: randomUUID, log },
    async close() {
      await store.close();
      await db.close();
    },
  };
}

/** Every row of the given tables, in a stable order, as one comparable value. */
export async function dumpTables(pool: Pick<SqlPool, 'query'> | SqlClient, tables: readonly string[]): Promise<Record<string, unknown[]>> {
  const dump: Record<string, unknown[]> = {};
  for (const table of tables) {
    const { rows } = await pool.query(`SELECT * FROM ${table} ORDER BY 1, 2`);
    dump[table] = rows;
  }
  return dump;
}

/**
 * Every committed event of `$all`, in order, as `readAll` gives them once they are readable. The
 * gap-free read holds back events behind any older transaction still open on the server (another
 * test's database counts: transaction ids are the cluster's), so a test that appended and then reads
 * once may see fewer events than it wrote. This reads again until the read itself reaches the newest
 * commit (a separate check of the head first is not enough: the next statement may be held back
 * again); a read filtered by type cannot tell, so it waits for the head instead.
 */
export async function readAllCommitted(store: EventStore, options: ReadAllOptions): Promise<RecordedEvent[]> {
  const newest = await store.lastPosition();
  for (let attempt = 0; newest !== undefined && attempt < 500; attempt++) {
    if (options.types === undefined) {
      const events = await store.readAll(options);
      const last = events.at(-1)?.position ?? options.after ?? -1n;
      if (last >= newest || events.length >= options.limit) return events;
    } else if (((await store.headPosition()) ?? -1n) >= newest) {
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return store.readAll(options);
}
