import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../log.js';
import { createPositionWaiter, type PositionWaiter } from '../projections/waiter.js';
import { isConnectionFailure } from '../storage/errors.js';
import { createPgPool, type SqlPool } from '../storage/pool.js';
import type { StandbyHealth } from '../storage/read-route.js';

/**
 * Reads past one database server (docs/operations.md, read replicas): PostgreSQL hot standbys of the
 * primary (READ_DATABASE_URL) serve GraphQL queries, REST reads and a subscription's reads for each
 * change, taken in turn. Writes, projections, sign-in and the change feed stay on the primary.
 *
 * Read-your-writes stays exact: every write this process acknowledges waited until its projections
 * reached the write's position on the primary, and noted that position here per projection; a read
 * served by a standby first waits until the standby's replicated checkpoints show those positions
 * (a projection commits its rows and its checkpoint in one transaction, and a standby replays whole
 * transactions, so the rows are there too). A standby that does not catch up within the bound is
 * passed over for that read: the primary answers, never a stale standby.
 */

/** One standby: its pool and its read-your-writes waiter (for X-Min-Position on its checkpoints). */
export interface ReadReplica {
  /** `host:port/database`, for logs and metrics (no credentials). */
  readonly name: string;
  readonly pool: SqlPool;
  readonly waitFor: PositionWaiter;
}

/**
 * The standbys of a process and what its reads owe to its writes. As StandbyHealth, it passes over
 * a standby that cannot be reached: its reads go to the primary, and it is asked again after a
 * second, then less and less often (up to every PASSED_OVER_MAX_MS) until it answers.
 */
export interface ReadReplicas extends StandbyHealth {
  readonly replicas: readonly ReadReplica[];
  /** The standby whose pool this is (the current read route's). */
  replicaOf(pool: SqlPool): ReadReplica | undefined;
  /** The next standby in turn that is not passed over; when every one is, the next in turn (not usable). */
  pick(): ReadReplica;
  /** A write this process acknowledged: its projections reached `position` on the primary. */
  noteWrite(projections: readonly string[], position: bigint): void;
  /** Whether the standby shows every write this process acknowledged, waiting for it up to the bound. */
  caughtUp(replica: ReadReplica): Promise<boolean>;
  /**
   * Whether the standby's checkpoints show `position` for every one of `projections` (a change a
   * subscription passes on, written by any replica of the service), waiting for it up to the bound.
   */
  reached(replica: ReadReplica, projections: readonly string[], position: bigint): Promise<boolean>;
  end(): Promise<void>;
}

/** How createReadReplicas opens and waits on the standbys. */
export interface ReadReplicaOptions {
  readonly urls: readonly string[];
  readonly log: Logger;
  /** How long a read waits for a standby before the primary answers it (and X-Min-Position's bound). */
  readonly timeoutMs: number;
  /** How often a waiting read looks at the standby's checkpoints. */
  readonly pollMs?: number;
  readonly prepareStatements?: boolean;
  /** The newest position of the event log (X-Min-Position beyond it is refused, not waited for). */
  readonly head: () => Promise<bigint | undefined>;
}

const nameOf = (url: string): string => {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
};

interface Replica extends ReadReplica {
  /** The newest checkpoint position seen on this standby, per projection. */
  readonly seen: Map<string, bigint>;
  /** The checkpoint read in flight, if any: waits that overlap share it (one query however many wait). */
  refreshing?: Promise<void>;
  /**
   * What a wait past the bound was still owed (projection → position): until the standby shows it,
   * waits look once and pass the read to the primary instead of each waiting the bound again (a
   * stalled standby would otherwise hold every read, and every change a subscription passes on, for
   * the whole bound).
   */
  stalledOn?: ReadonlyMap<string, bigint>;
  /** Set while the standby is passed over after it could not be reached: since when, until when, for how long. */
  passedOver?: { readonly since: number; readonly until: number; readonly forMs: number };
}

/** How long a standby that could not be reached is passed over: the first time, and at most (doubling between). */
const PASSED_OVER_MIN_MS = 1000;
const PASSED_OVER_MAX_MS = 30_000;

/** Opens a pool per standby (connections are made on first use). */
export function createReadReplicas(options: ReadReplicaOptions): ReadReplicas {
  const pollMs = options.pollMs ?? 5;
  const replicas: Replica[] = options.urls.map((url) => {
    // A standby that gives no connection within the bound (stopped, unreachable, or dropping packets,
    // which would hold a read until the operating system gives up) is passed over like one refusing.
    const pool = createPgPool({
      connectionString: url,
      log: options.log,
      prepareStatements: options.prepareStatements,
      connectTimeoutMs: options.timeoutMs,
    });
    return {
      name: nameOf(url),
      pool,
      seen: new Map(),
      waitFor: createPositionWaiter({ pool, runners: [], timeoutMs: options.timeoutMs, head: options.head }),
    };
  });
  const byPool = new Map<SqlPool, Replica>(replicas.map((replica) => [replica.pool, replica]));
  /** What this process acknowledged, per projection: the newest position. */
  const written = new Map<string, bigint>();
  let turn = 0;

  /** The projections (and positions) of `needed` the standby has not shown yet. */
  const unseen = (replica: Replica, needed: Iterable<readonly [string, bigint]>): Map<string, bigint> =>
    new Map([...needed].filter(([name, position]) => (replica.seen.get(name) ?? -1n) < position));

  /** The standby answered a statement: one passed over is taken back. */
  const answered = (replica: Replica): void => {
    if (replica.passedOver === undefined) return;
    options.log.info(
      { standby: replica.name, unreachableMs: Date.now() - replica.passedOver.since },
      'standby answers again: its reads go to it again',
    );
    replica.passedOver = undefined;
  };

  /** Reads the standby's checkpoints into `seen`, joining a read already in flight. */
  const refresh = (replica: Replica): Promise<void> => {
    replica.refreshing ??= replica.pool
      .query<{ name: string; position: string | null }>('SELECT name, position FROM projection_checkpoints')
      .then(({ rows }) => {
        answered(replica);
        for (const row of rows) {
          const position = row.position === null ? -1n : BigInt(row.position);
          if ((replica.seen.get(row.name) ?? -1n) < position) replica.seen.set(row.name, position);
        }
      })
      .finally(() => {
        replica.refreshing = undefined;
      });
    return replica.refreshing;
  };

  /**
   * Waits, up to the bound, until the standby shows every position `needed` names; a standby still
   * short of what an earlier wait timed out on is looked at once, not waited for.
   */
  const showsAll = async (reader: ReadReplica, needed: Iterable<readonly [string, bigint]>): Promise<boolean> => {
    const replica = byPool.get(reader.pool);
    if (!replica) return false;
    const stalled = replica.stalledOn !== undefined && unseen(replica, replica.stalledOn).size > 0;
    let deadline = Date.now() + (stalled ? 0 : options.timeoutMs);
    while (unseen(replica, needed).size > 0) {
      await refresh(replica);
      if (replica.stalledOn !== undefined && unseen(replica, replica.stalledOn).size === 0) {
        // Caught up with what stalled it: waited for as usual again.
        replica.stalledOn = undefined;
        deadline = Date.now() + options.timeoutMs;
        options.log.info({ standby: replica.name }, 'standby caught up with what it was behind: reads wait for it again');
      }
      const owed = unseen(replica, needed);
      if (owed.size === 0) return true;
      if (Date.now() >= deadline) {
        // The first stall is kept: a standby that shows it has moved on, even if still behind the newest write.
        // Said once, not for every read it passes to the primary (infraledger_standby_reads_total counts those).
        if (replica.stalledOn === undefined) {
          options.log.warn(
            { standby: replica.name, behind: Object.fromEntries([...owed].map(([name, position]) => [name, String(position)])) },
            'standby behind past the bound: reads it has not caught up for go to the primary until it shows these positions',
          );
        }
        replica.stalledOn ??= owed;
        return false;
      }
      await delay(pollMs);
    }
    return true;
  };

  /** Whether the standby is asked: not passed over, or its time passed over is up (the next statement tries it). */
  const usable = (replica: Replica): boolean => replica.passedOver === undefined || Date.now() >= replica.passedOver.until;

  return {
    replicas,
    replicaOf: (pool) => byPool.get(pool),
    pick() {
      const first = replicas[turn % replicas.length];
      if (!first) throw new TypeError('no read replica configured');
      for (let i = 0; i < replicas.length; i++) {
        const replica = replicas[(turn + i) % replicas.length] as Replica;
        if (!usable(replica)) continue;
        turn = (turn + i + 1) % replicas.length;
        return replica;
      }
      turn = (turn + 1) % replicas.length;
      return first;
    },
    usable(pool) {
      const replica = byPool.get(pool);
      return replica !== undefined && usable(replica);
    },
    failed(pool, error) {
      const replica = byPool.get(pool);
      if (!replica || !isConnectionFailure(error)) return false;
      const now = Date.now();
      const before = replica.passedOver;
      // A statement under way when it was passed over changes nothing: only a try after the wait doubles it.
      if (before !== undefined && now < before.until) return true;
      const forMs = before ? Math.min(before.forMs * 2, PASSED_OVER_MAX_MS) : PASSED_OVER_MIN_MS;
      replica.passedOver = { since: before?.since ?? now, until: now + forMs, forMs };
      if (!before) {
        options.log.warn(
          { err: error, standby: replica.name, askedAgainInMs: forMs, atMostEveryMs: PASSED_OVER_MAX_MS },
          'standby unreachable: its reads go to the primary; it is asked again after a while, less often each time, until it answers',
        );
      }
      return true;
    },
    answered(pool) {
      const replica = byPool.get(pool);
      if (replica) answered(replica);
    },
    noteWrite(projections, position) {
      for (const name of projections) if ((written.get(name) ?? -1n) < position) written.set(name, position);
    },
    // `written` is live: a wait sees the writes acknowledged while it waits.
    caughtUp: (reader) => showsAll(reader, written),
    reached: (reader, projections, position) =>
      showsAll(
        reader,
        projections.map((name) => [name, position] as const),
      ),
    async end() {
      await Promise.all(replicas.map((replica) => replica.pool.end()));
    },
  };
}
