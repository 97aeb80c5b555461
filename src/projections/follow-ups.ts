import type { SqlClient } from '../storage/pool.js';
import { PreparedTexts } from './prepared-texts.js';

/**
 * A read a writer wants answered as soon as its write is projected: a statement whose parameters are
 * `$n` placeholders, and their values (text, numbers, booleans). The projection hub sends it after
 * the COMMIT of the batch that projects the write, in that batch's message (see FollowUps).
 */
export interface FollowingRead {
  readonly text: string;
  readonly parameters: readonly unknown[];
}

/** A read's rows as node-postgres parses them (the same types as any statement of the pool). */
export type ReadRows = readonly Record<string, unknown>[];

/** A registered read, withdrawn by `take`: the rows when a batch answered it, otherwise undefined. */
export interface FollowUp {
  take(): ReadRows | undefined;
}

interface Pending {
  readonly read: FollowingRead;
  readonly position: bigint;
  /** The projections whose tables the read needs complete up to `position`. */
  readonly projections: readonly string[];
  rows?: ReadRows;
}

/** A batch's share of the follow-ups: the statements it sends after its COMMIT, and how to hand their rows over. */
export interface DueReads {
  readonly statements: readonly string[];
  /** Hands each read its rows (the batch's last `count` results, in order); marks the texts prepared on the connection. */
  settle(results: readonly ReadRows[]): void;
  /** After the batch's message failed with `error` (PreparedTexts.failed): the reads stay unanswered. */
  failed(error: unknown): void;
  readonly count: number;
}

/**
 * Read-your-writes in no round trip of its own (decisions/0007). A write's answer is its entity as the
 * read model shows it, read back once the projection hub has committed the batch that holds its
 * events; that read was a statement of its own, after the hub's commit had woken the writer. A writer
 * may instead register the read here: the hub sends it right after the COMMIT of the batch that
 * reaches the write's position (`due`), in that batch's one message, and hands the rows over before
 * it wakes the writer. A read no batch answered (a batch that took the explicit path, a projection
 * standing by) gives undefined, and the writer reads as before.
 *
 * Each text is prepared once per connection (./prepared-texts.ts, names `il_follow_…`) and run with
 * `EXECUTE`: planned once, where a text sent with its literals would be planned on every batch (a
 * lookup by id on a table with a dozen indexes costs more to plan than to run).
 */
export class FollowUps {
  private readonly pending = new Set<Pending>();
  private readonly texts = new PreparedTexts('il_follow_');

  /** Registers `read` for the batch that brings every one of `projections` to `position`. */
  add(read: FollowingRead, position: bigint, projections: readonly string[]): FollowUp {
    const entry: Pending = { read, position, projections };
    this.pending.add(entry);
    return {
      take: () => {
        this.pending.delete(entry);
        return entry.rows;
      },
    };
  }

  /**
   * The reads a batch committed on `client` answers: those at or below `last` whose projections it
   * leaves complete up to `last` (`complete`), and not answered yet. Undefined when there are none.
   */
  due(client: SqlClient, last: bigint, complete: (projection: string) => boolean): DueReads | undefined {
    const reads = [...this.pending].flatMap((entry) => {
      const answerable = entry.rows === undefined && entry.position <= last && entry.projections.every(complete);
      const run = answerable ? this.texts.run(client, entry.read.text, entry.read.parameters) : undefined;
      return run === undefined ? [] : [{ entry, run }];
    });
    if (reads.length === 0) return undefined;
    const preparing = new Map<string, string>();
    for (const { run } of reads) if (run.prepare !== undefined) preparing.set(run.name, run.prepare);
    return {
      statements: [...preparing.values(), ...reads.map(({ run }) => run.execute)],
      count: reads.length,
      settle: (results) => {
        this.texts.settle(client, preparing.keys());
        reads.forEach(({ entry }, i) => (entry.rows = results[i] ?? []));
      },
      failed: (error) => this.texts.failed(client, error),
    };
  }

  /** How many reads wait for a batch (tests). */
  get size(): number {
    return this.pending.size;
  }
}
