/**
 * Readers of `$all` stop below the oldest transaction still open in the database (its events could
 * still commit below a position they passed: docs/decisions/0006-concurrent-append.md), so a long
 * write transaction that will never append, a rebuild's index build or a projection batch, would
 * hold every reader back until it ends: read-your-writes waited up to the whole index build while a
 * rebuild ran. Such a transaction says so first by holding this shared advisory lock (shared holders
 * never wait on each other; nothing takes it exclusively), and readers leave its transaction ids out
 * of their bound (`infraledger_readable_below`, migration 039, finds them by this lock's keys).
 *
 * The promise is the transaction's, for its whole life: one that holds the lock must never append
 * an event, before or after taking it. Only code that writes read tables takes it.
 */

/** The lock's two keys (`pg_locks`: classid, objid, objsubid 2); class 7146 is the streams' locks (migration 026). */
export const NOT_APPENDING_LOCK = { classId: 7147, objId: 1 } as const;

/** The statement that marks the current transaction (run it inside the transaction, or first in a multi-statement text). */
export const MARK_NOT_APPENDING = `SELECT pg_advisory_xact_lock_shared(${NOT_APPENDING_LOCK.classId}, ${NOT_APPENDING_LOCK.objId})`;
