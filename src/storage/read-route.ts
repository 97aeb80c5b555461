import { AsyncLocalStorage } from 'node:async_hooks';
import { isConnectionFailure } from './errors.js';
import type { SqlClient, SqlPool, SqlResult } from './pool.js';

/**
 * The pool the current request reads from: a hot standby while a read request runs inside
 * `readRoute.run(standby, …)` (src/http/read-routing.ts), else none (the primary). Whatever starts
 * inside that call (Kysely's connect, a statement) sees it, however deep the await chain.
 */
export const readRoute = new AsyncLocalStorage<SqlPool>();

/** What the routed pool knows of its standbys' health (src/read/replicas.ts keeps it). */
export interface StandbyHealth {
  /** Whether statements may go to the standby (not while it is passed over after a failure). */
  usable(standby: SqlPool): boolean;
  /** A statement could not reach the standby: it is passed over for a while. */
  unreachable(standby: SqlPool, error: unknown): void;
  /** A statement on the standby was answered (one passed over is taken back). */
  answered(standby: SqlPool): void;
}

/** Statements that open and close a transaction (a statement inside one cannot move to another server). */
const TRANSACTION_START = /^\s*(begin|start\s+transaction)\b/i;
const TRANSACTION_END = /^\s*(commit|rollback|end|abort)\s*(;|$)/i;

/**
 * Whether a statement that failed on a standby runs on the primary instead: the standby could not
 * be reached (then it is passed over for a while), or it cancelled the statement for a conflict
 * with the replay of the primary's changes (SQLSTATE class 40 on a standby, whose transactions are
 * all read-only). Either way the statement was a read that the primary answers as well.
 */
function onPrimaryInstead(health: StandbyHealth, standby: SqlPool, error: unknown): boolean {
  if (isConnectionFailure(error)) {
    health.unreachable(standby, error);
    return true;
  }
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('40');
}

/**
 * A pool that sends each statement to the current read route's standby, else to `primary`. The
 * service's query builder (services.db) runs over it, so every read path reaches a standby without
 * knowing it; writes, projections and the event store hold the primary pool itself. LISTEN and the
 * pool's end are the primary's (standbys are ended by their owner). A standby that cannot be
 * reached costs no request: its statement runs on the primary, and so do the route's next ones.
 */
export function routedPool(primary: SqlPool, health: StandbyHealth): SqlPool {
  const current = (): SqlPool => {
    const standby = readRoute.getStore();
    return standby && health.usable(standby) ? standby : primary;
  };
  return {
    dialect: primary.dialect,
    async query<R>(text: string, params?: readonly unknown[]) {
      const pool = current();
      if (pool === primary) return primary.query<R>(text, params);
      let result: SqlResult<R>;
      try {
        result = await pool.query<R>(text, params);
      } catch (error) {
        if (!onPrimaryInstead(health, pool, error)) throw error;
        return primary.query<R>(text, params);
      }
      health.answered(pool);
      return result;
    },
    // R names the rows the statement selects, as SqlPool's queryEach does.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
    async queryEach<R>(text: string, params: readonly unknown[], onRow: (row: R) => void) {
      const pool = current();
      if (pool === primary) return primary.queryEach<R>(text, params, onRow);
      let handed = 0;
      let count: number;
      try {
        count = await pool.queryEach<R>(text, params, (row) => {
          handed++;
          onRow(row);
        });
      } catch (error) {
        // Rows already handed on cannot be taken back: only a statement that gave none runs again.
        if (handed > 0 || !onPrimaryInstead(health, pool, error)) throw error;
        return primary.queryEach<R>(text, params, onRow);
      }
      health.answered(pool);
      return count;
    },
    // The query builder connects for every statement: a standby's connection that fails its
    // statement hands it to the primary too, unless a transaction had begun on it.
    async connect() {
      const pool = current();
      if (pool === primary) return primary.connect();
      let client: SqlClient;
      try {
        client = await pool.connect();
      } catch (error) {
        if (!isConnectionFailure(error)) throw error;
        health.unreachable(pool, error);
        return primary.connect();
      }
      health.answered(pool);
      let inTransaction = false;
      return {
        async query<R>(text: string, params?: readonly unknown[]) {
          if (TRANSACTION_START.test(text)) inTransaction = true;
          try {
            return await client.query<R>(text, params);
          } catch (error) {
            if (inTransaction || !onPrimaryInstead(health, pool, error)) throw error;
            return await primary.query<R>(text, params);
          } finally {
            if (TRANSACTION_END.test(text)) inTransaction = false;
          }
        },
        release: (destroy) => client.release(destroy),
      };
    },
    listen: (channel, onPayload) => primary.listen(channel, onPayload),
    end: () => primary.end(),
  };
}
