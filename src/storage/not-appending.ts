/**
 * Readers of `$all` stop below the oldest transaction still open in the database (its events could
 * still commit below a position they passed: docs/decisions/0006-concurrent-append.md), so a long
 * write transaction that will never append, a rebuild's index build or a projection batch, would
 * hold every reader back until it ends: read-your-writes waited up to the whole index build while a
 * rebuild ran. Such a transaction says so first by holding this shared advisory lock (shared holders
 * never wait on each other; nothing takes it exclusively), and readers leave its transaction ids out
 * of their bound.
 *
 * The promise is the transaction's, for its whole life: one that holds the lock must never append
 * an event, before or after taking it. Only code that writes read tables takes it.
 */

/** The lock's two keys (`pg_locks`: classid, objid, objsubid 2); class 7146 is the streams' locks (migration 026). */
export const NOT_APPENDING_LOCK = { classId: 7147, objId: 1 } as const;

/** The statement that marks the current transaction (run it inside the transaction, or first in a multi-statement text). */
export const MARK_NOT_APPENDING = `SELECT pg_advisory_xact_lock_shared(${NOT_APPENDING_LOCK.classId}, ${NOT_APPENDING_LOCK.objId})`;

/**
 * The transaction ids of marked transactions open right now, as a subquery of 32-bit ids: each
 * marked transaction's own ids (it holds its own transaction id exclusively), matched to its mark by
 * virtual transaction id, which no other transaction ever carries. A transaction merely waiting for
 * another's id holds no granted exclusive lock on it, so waiting never excludes the awaited id.
 * Never NULL: readers compare with NOT IN, which one NULL would turn into "no open transaction holds
 * the bound back".
 */
export const MARKED_TRANSACTION_IDS = `SELECT x.transactionid::text::bigint FROM pg_locks AS x
  WHERE x.locktype = 'transactionid' AND x.mode = 'ExclusiveLock' AND x.granted AND x.transactionid IS NOT NULL
    AND x.virtualtransaction IN (
      SELECT m.virtualtransaction FROM pg_locks AS m
       WHERE m.locktype = 'advisory' AND m.classid = ${NOT_APPENDING_LOCK.classId} AND m.objid = ${NOT_APPENDING_LOCK.objId}
         AND m.objsubid = 2 AND m.granted)`;
