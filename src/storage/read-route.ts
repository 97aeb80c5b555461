import { AsyncLocalStorage } from 'node:async_hooks';
import type { SqlClient, SqlPool } from './pool.js';

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
  /**
   * A statement on the standby failed: true when the standby could not be reached (a connection
   * failure, ./errors.ts), which then passes it over for a while; false for any other error.
   */
  failed(standby: SqlPool, error: unknown): boolean;
  /** A statement on the standby was answered (one passed over is taken back). */
  answered(standby: SqlPool): void;
}

/** Statements that open and close a transaction (a statement inside one cannot move to another server). */
const TRANSACTION_START = /^\s*(begin|start\s+transaction)\b/i;
const TRANSACTION_END = /^\s*(commit|rollback|end|abort)\s*(;|$)/i;

/** A standby cancelled the statement for a conflict with its replay of the primary's changes (SQLSTATE class 40 there). */
const isRecoveryConflict = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('40');
};

/**
 * Runs a statement on the standby. One that fails there because the standby could not be reached,
 * or cancelled it for a conflict with its replay (a standby's transactions are all read-only), runs
 * on the primary instead, which answers a read as well, unless `movable` says it cannot move.
 */
async function standbyFirst<T>(
  health: StandbyHealth,
  standby: SqlPool,
  onStandby: () => Promise<T>,
  onPrimary: () => Promise<T>,
  movable: () => boolean = () => true,
): Promise<T> {
  let result: T;
  try {
    result = await onStandby();
  } catch (error) {
    const unreachable = health.failed(standby, error);
    if (!movable() || !(unreachable || isRecoveryConflict(error))) throw error;
    return onPrimary();
  }
  health.answered(standby);
  return result;
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
    query<R>(text: string, params?: readonly unknown[]) {
      const pool = current();
      if (pool === primary) return primary.query<R>(text, params);
      return standbyFirst(
        health,
        pool,
        () => pool.query<R>(text, params),
        () => primary.query<R>(text, params),
      );
    },
    // R names the rows the statement selects, as SqlPool's queryEach does.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
    queryEach<R>(text: string, params: readonly unknown[], onRow: (row: R) => void) {
      const pool = current();
      if (pool === primary) return primary.queryEach<R>(text, params, onRow);
      let handed = 0;
      return standbyFirst(
        health,
        pool,
        () =>
          pool.queryEach<R>(text, params, (row) => {
            handed++;
            onRow(row);
          }),
        () => primary.queryEach<R>(text, params, onRow),
        // Rows already handed on cannot be taken back: only a statement that gave none runs again.
        () => handed === 0,
      );
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
        if (!health.failed(pool, error)) throw error;
        return primary.connect();
      }
      health.answered(pool);
      let inTransaction = false;
      return {
        async query<R>(text: string, params?: readonly unknown[]) {
          if (TRANSACTION_START.test(text)) inTransaction = true;
          try {
            return await standbyFirst(
              health,
              pool,
              () => client.query<R>(text, params),
              () => primary.query<R>(text, params),
              () => !inTransaction,
            );
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
