import type { SqlClient, SqlPool, SqlResult } from '../../src/storage/pool.js';

/** Runs one statement of a connected client in a test's stead: `send` runs it as the client would. */
export type ClientStatement = (text: string, send: () => Promise<SqlResult<unknown>>, client: SqlClient) => Promise<SqlResult<unknown>>;

/**
 * `pool`, but every statement sent on a connected client (a transaction's) goes through `statement`,
 * which may look around, hold the transaction open, count, or fail it instead of sending it.
 * Statements sent on the pool itself pass untouched.
 */
export function interceptClients(pool: SqlPool, statement: ClientStatement): SqlPool {
  return {
    ...pool,
    dialect: pool.dialect,
    query: (text, params) => pool.query(text, params),
    async connect() {
      const client = await pool.connect();
      const wrapped: SqlClient = {
        query: async <R>(text: string, params?: readonly unknown[]) =>
          (await statement(text, () => client.query(text, params), client)) as SqlResult<R>,
        release: (destroy) => client.release(destroy),
      };
      return wrapped;
    },
  };
}

/** `pool`, with `after(text, client)` run after each statement of a connected client, before its result is handed back. */
export function withClientHook(pool: SqlPool, after: (text: string, client: SqlClient) => Promise<void>): SqlPool {
  return interceptClients(pool, async (text, send, client) => {
    const result = await send();
    await after(text, client);
    return result;
  });
}
