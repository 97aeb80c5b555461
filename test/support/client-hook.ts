import type { SqlClient, SqlPool, SqlResult } from '../../src/storage/pool.js';

/** Runs one statement of a connected client in a test's stead: `send` runs it as the client would. */
export type ClientStatement = (text: string, send: () => Promise<SqlResult<unknown>>, client: SqlClient) => Promise<SqlResult<unknown>>;

/**
 * `pool`, but every statement sent on a connected client (a transaction's) goes through `statement`,
 * which may look around, hold the transaction open, count, or fail it instead of sending it.
 * Statements sent on the pool itself pass untouched. Each connection keeps one wrapper, as
 * node-postgres' pool hands out one client object per connection (the hub keeps what it prepared on
 * a connection by that object).
 */
export function interceptClients(pool: SqlPool, statement: ClientStatement): SqlPool {
  const wrappers = new WeakMap<SqlClient, SqlClient>();
  return {
    ...pool,
    dialect: pool.dialect,
    query: (text, params) => pool.query(text, params),
    async connect() {
      const client = await pool.connect();
      let wrapped = wrappers.get(client);
      if (!wrapped) {
        wrapped = {
          query: async <R>(text: string, params?: readonly unknown[]) =>
            (await statement(text, () => client.query(text, params), client)) as SqlResult<R>,
          release: (destroy) => client.release(destroy),
        };
        wrappers.set(client, wrapped);
      }
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
