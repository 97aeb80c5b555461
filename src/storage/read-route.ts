import { AsyncLocalStorage } from 'node:async_hooks';
import type { SqlPool } from './pool.js';

/**
 * The pool the current request reads from: a hot standby while a read request runs inside
 * `readRoute.run(standby, …)` (src/http/read-routing.ts), else none (the primary). Whatever starts
 * inside that call (Kysely's connect, a statement) sees it, however deep the await chain.
 */
export const readRoute = new AsyncLocalStorage<SqlPool>();

/**
 * A pool that sends each statement to the current read route's standby, else to `primary`. The
 * service's query builder (services.db) runs over it, so every read path reaches a standby without
 * knowing it; writes, projections and the event store hold the primary pool itself. LISTEN and the
 * pool's end are the primary's (standbys are ended by their owner).
 */
export function routedPool(primary: SqlPool): SqlPool {
  const current = (): SqlPool => readRoute.getStore() ?? primary;
  return {
    dialect: primary.dialect,
    query<R>(text: string, params?: readonly unknown[]) {
      return current().query<R>(text, params);
    },
    // R names the rows the statement selects, as SqlPool's queryEach does.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
    queryEach<R>(text: string, params: readonly unknown[], onRow: (row: R) => void) {
      return current().queryEach<R>(text, params, onRow);
    },
    connect: () => current().connect(),
    listen: (channel, onPayload) => primary.listen(channel, onPayload),
    end: () => primary.end(),
  };
}
