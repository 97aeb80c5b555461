import { createHash } from 'node:crypto';
import { inlineParameters, quoteLiteral } from '../storage/literals.js';
import type { SqlClient } from '../storage/pool.js';

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
  readonly count: number;
}

/** Distinct read texts named for PREPARE; the service's are one per entity kind, so this bound is never reached. */
const MAX_NAMES = 256;

/**
 * PREPARE `name` unless the connection has it already. The statements ride after the batch's COMMIT,
 * where an error would make a committed batch look failed (the hub would then find its checkpoints
 * moved and load them again), so a statement prepared before is no error: a PL/pgSQL block, planned
 * each time it runs, which is once per connection and text.
 */
const prepareOnce = (name: string, text: string): string =>
  `DO $follow$ BEGIN EXECUTE ${quoteLiteral(`PREPARE ${name} AS ${text}`)}; ` +
  'EXCEPTION WHEN duplicate_prepared_statement THEN NULL; END $follow$';

/**
 * Read-your-writes in no round trip of its own (decisions/0007). A write's answer is its entity as the
 * read model shows it, read back once the projection hub has committed the batch that holds its
 * events; that read was a statement of its own, after the hub's commit had woken the writer. A writer
 * may instead register the read here: the hub sends it right after the COMMIT of the batch that
 * reaches the write's position (`due`), in that batch's one message, and hands the rows over before
 * it wakes the writer. A read no batch answered (a batch that took the explicit path, a projection
 * standing by) gives undefined, and the writer reads as before.
 *
 * Each text is prepared once per connection with SQL `PREPARE` (named `il_follow_` and a digest of
 * the text, apart from the protocol-level names of src/storage/prepared.ts) and run with `EXECUTE`,
 * its values written in as literals: planned once, where a text sent with its literals would be
 * planned on every batch (a lookup by id on a table with a dozen indexes costs more to plan than to
 * run). Which connection prepared what is kept by the client object the pool hands out; a wrapper
 * that hands out a new object per checkout only makes the text be prepared again, which
 * `prepareOnce` tolerates.
 */
export class FollowUps {
  private readonly pending = new Set<Pending>();
  private readonly names = new Map<string, string>();
  private readonly prepared = new WeakMap<SqlClient, Set<string>>();

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
      const name = answerable ? this.nameOf(entry.read) : undefined;
      return name === undefined ? [] : [{ entry, name }];
    });
    if (reads.length === 0) return undefined;
    const known = this.prepared.get(client) ?? new Set<string>();
    const preparing = new Map<string, string>();
    const executes = reads.map(({ entry, name }) => {
      if (!known.has(name)) preparing.set(name, prepareOnce(name, entry.read.text));
      const values = inlineParameters(entry.read.parameters.map((_, i) => `$${String(i + 1)}`).join(', '), entry.read.parameters);
      return `EXECUTE ${name}${entry.read.parameters.length === 0 ? '' : `(${values})`}`;
    });
    return {
      statements: [...preparing.values(), ...executes],
      count: executes.length,
      settle: (results) => {
        for (const name of preparing.keys()) known.add(name);
        this.prepared.set(client, known);
        reads.forEach(({ entry }, i) => (entry.rows = results[i] ?? []));
      },
    };
  }

  /** How many reads wait for a batch (tests). */
  get size(): number {
    return this.pending.size;
  }

  private nameOf(read: FollowingRead): string | undefined {
    const named = this.names.get(read.text);
    if (named !== undefined || this.names.size >= MAX_NAMES) return named;
    // Named by the text itself: hubs that share a pool over time (a restart in one process) must never
    // find a name prepared for another text, which `prepareOnce` would keep.
    const name = `il_follow_${createHash('sha256').update(read.text).digest('hex').slice(0, 32)}`;
    this.names.set(read.text, name);
    return name;
  }
}
