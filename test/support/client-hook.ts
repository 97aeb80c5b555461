import type { SqlClient, SqlPool } from '../../src/storage/pool.js';

/**
 * `pool`, but every statement sent on a connected client (a transaction's) is followed by
 * `after(text, client)` before its result is handed back: a test can look around, or hold the
 * transaction open, at a chosen statement.
 */
export function withClientHook(pool: SqlPool, after: (text: string, client: SqlClient) => Promise<void>): SqlPool {
  return {
    ...pool,
    dialect: pool.dialect,
    query: (text, params) => pool.query(text, params),
    async connect() {
      const client = await pool.connect();
      const wrapped: SqlClient = {
        async query<R>(text: string, params?: readonly unknown[]) {
          const result = await client.query<R>(text, params);
          await after(text, client);
          return result;
        },
        release: (destroy) => client.release(destroy),
      };
      return wrapped;
    },
  };
}
