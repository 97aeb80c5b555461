import { getPostgreSQLEventStore, type PostgresEventStore } from '@event-driven-io/emmett-postgresql';
import pg from 'pg';
import type { Appender } from './appends.js';

/**
 * Emmett (`@event-driven-io/emmett-postgresql`, the real package) as a side of the append bench: its
 * own schema in a database of its own, appends through `appendToStream` with the expected stream
 * version, on a pool as large as the writers.
 */
export interface EmmettSide {
  readonly append: Appender;
  close(): Promise<void>;
}

/** Opens Emmett on `connectionString` (its schema migrates on first use). */
export async function openEmmett(connectionString: string, connections: number): Promise<EmmettSide> {
  const pool = new pg.Pool({ connectionString, max: connections });
  pool.on('error', () => undefined);
  const store: PostgresEventStore = getPostgreSQLEventStore(connectionString, { connectionOptions: { pool } });
  await store.schema.migrate();
  return {
    // Emmett counts stream versions from 1 (0 = no stream); the bench's revisions count from 0.
    append: async (streamId, event, expected) => {
      const expectedStreamVersion = expected === 'no_stream' ? 0n : typeof expected === 'bigint' ? expected + 1n : undefined;
      if (expectedStreamVersion === undefined) throw new TypeError(`the Emmett side takes exact revisions only, not ${expected}`);
      const result = await store.appendToStream(streamId, [{ type: event.type, data: event.data, metadata: event.metadata }], {
        expectedStreamVersion,
      });
      return result.nextExpectedStreamVersion - 1n;
    },
    async close() {
      await store.close();
      await pool.end().catch(() => undefined);
    },
  };
}
