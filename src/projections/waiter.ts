import type { SqlPool } from '../storage/pool.js';
import { AppError } from '../errors.js';
import type { FollowingRead, FollowUp, ReadRows } from './follow-ups.js';
import type { ProjectionLane } from './hub.js';

/** What read-your-writes waiting needs. */
export interface PositionWaiterDeps {
  readonly pool: SqlPool;
  /** Runners of this process: their progress wakes waiters at once. */
  readonly runners: readonly ProjectionLane[];
  readonly timeoutMs: number;
  /** How often the checkpoint table is read, for projections another replica runs. */
  readonly pollMs?: number;
  /** The newest position of the event log, for refusing a wait for a position that does not exist yet. */
  readonly head?: () => Promise<bigint | undefined>;
  /** Registers a read with the batch that projects the write (ProjectionHub.follow); without it, waits read nothing. */
  readonly follow?: (read: FollowingRead, position: bigint, projections: readonly string[]) => FollowUp | undefined;
}

/** A read to answer with the wait, from the batch that ends it (./follow-ups.ts). */
export interface WaitRead extends FollowingRead {
  /** The projections whose tables the read reads: they too must be complete up to the position. */
  readonly projections: readonly string[];
}

/** How one wait treats a position beyond the event log's head. */
export interface WaitOptions {
  /**
   * Called with the head when the position is beyond it (checked only once the read model has not
   * reached the position at first look, so a caught-up read costs nothing); its error is thrown
   * instead of waiting for a position no write has produced. Without it such a wait ends in 503.
   */
  readonly beyondHead?: (head: bigint) => Error;
  /**
   * A read the wait may answer with: when this process's projections have still to reach the
   * position, the batch that brings them there sends it after its COMMIT. The wait then resolves
   * with its rows; with undefined when no batch answered it (the caller reads as before).
   */
  readonly read?: WaitRead;
}

/**
 * Resolves once the named projections have applied everything up to the position (see
 * createPositionWaiter), with the rows of `options.read` when the batch that ended the wait answered it.
 */
export type PositionWaiter = (projections: readonly string[], position: bigint, options?: WaitOptions) => Promise<ReadRows | undefined>;

/**
 * Read-your-writes: resolves once the named projections have applied everything up to `position`.
 * This process's running projections wake it the moment they move (no query); for the others
 * (standing by while another replica applies them, or not run here) the checkpoints are polled.
 * Past the bound it answers 503 rather than a stale read.
 */
export function createPositionWaiter(deps: PositionWaiterDeps): PositionWaiter {
  const pollMs = deps.pollMs ?? 25;
  const local = new Map(deps.runners.map((r) => [r.projection.name, r]));

  const reached = async (names: readonly string[], position: bigint): Promise<boolean> => {
    const remote: string[] = [];
    for (const name of names) {
      const runner = local.get(name);
      if (runner?.state === 'failed') {
        throw new AppError('READ_MODEL_STOPPED', `the ${name} read model is stopped on a poison event; an operator must rebuild it`);
      }
      if (runner?.position !== undefined && runner.position >= position) continue;
      // This process applies it: its progress wakes the waiter, the table has nothing newer to say.
      if (runner?.state === 'running') return false;
      remote.push(name);
    }
    if (remote.length === 0) return true;
    const { rows } = await deps.pool.query<{ name: string; position: string | null }>(
      'SELECT name, position FROM projection_checkpoints WHERE name = ANY($1::text[])',
      [remote],
    );
    return remote.every((name) => {
      const row = rows.find((r) => r.name === name);
      return row?.position != null && BigInt(row.position) >= position;
    });
  };

  /** Registers `read` when every projection it needs runs in this process, whose batches alone can answer it. */
  const readHere = (names: readonly string[], read: WaitRead, position: bigint): FollowUp | undefined => {
    const needed = [...new Set([...names, ...read.projections])];
    if (!deps.follow || !needed.every((name) => local.get(name)?.state === 'running')) return undefined;
    return deps.follow({ text: read.text, parameters: read.parameters }, position, needed);
  };

  return async (names, position, options = {}) => {
    const deadline = Date.now() + deps.timeoutMs;
    const listeners: { runner: ProjectionLane; listener: () => void }[] = [];
    let headChecked = false;
    let followUp: FollowUp | undefined;
    let rows: ReadRows | undefined;
    try {
      while (!(await reached(names, position))) {
        // Still to come: the batch that brings this process's projections there may answer the read.
        followUp ??= options.read && readHere(names, options.read, position);
        if (!headChecked && options.beyondHead && deps.head) {
          headChecked = true;
          const head = (await deps.head()) ?? 0n;
          if (position > head) throw options.beyondHead(head);
        }
        const left = deadline - Date.now();
        if (left <= 0) {
          throw new AppError(
            'READ_MODEL_LAGGING',
            `the write was stored (position ${position}) but the read model did not catch up within ${deps.timeoutMs} ms; read it ` +
              `again shortly`,
            {
              details: { position: String(position) },
            },
          );
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(pollMs, left));
          for (const name of names) {
            const runner = local.get(name);
            if (!runner) continue;
            const listener = (): void => {
              clearTimeout(timer);
              resolve();
            };
            runner.progress.once('position', listener);
            listeners.push({ runner, listener });
          }
        });
        for (const { runner, listener } of listeners.splice(0)) runner.progress.off('position', listener);
      }
    } finally {
      for (const { runner, listener } of listeners) runner.progress.off('position', listener);
      // Withdrawn however the wait ends. The hub hands the rows over before it moves the lanes, so a
      // batch that ended the wait has answered by now.
      rows = followUp?.take();
    }
    return rows;
  };
}
