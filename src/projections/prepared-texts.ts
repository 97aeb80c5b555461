import { createHash } from 'node:crypto';
import { inlineParameters, quoteLiteral } from '../storage/literals.js';
import type { SqlClient } from '../storage/pool.js';

/** A statement to send in a batch's message in place of `text`: its PREPARE first when the connection lacks it. */
export interface PreparedRun {
  readonly name: string;
  /** The PREPARE, when this connection has not been seen to prepare `name`. */
  readonly prepare?: string;
  readonly execute: string;
}

/** The SQLSTATE of an EXECUTE whose statement the connection does not have (invalid_sql_statement_name). */
const MISSING_STATEMENT = '26000';

/** Distinct texts named for PREPARE; the service's are a few per projection and entity kind, so this bound is never reached. */
const MAX_NAMES = 256;

/**
 * PREPARE `name` unless the connection has it already. The statement may ride where an error would
 * make a committed batch look failed (after its COMMIT) or be sent again on a connection that has it
 * (a PREPARE outlives the transaction that ran it, even one rolled back), so a statement prepared
 * before is no error: a PL/pgSQL block, planned each time it runs, which is once per connection and
 * text.
 */
const prepareOnce = (name: string, text: string): string =>
  `DO $prepare$ BEGIN EXECUTE ${quoteLiteral(`PREPARE ${name} AS ${text}`)}; ` +
  'EXCEPTION WHEN duplicate_prepared_statement THEN NULL; END $prepare$';

/**
 * Statement texts a batch's message runs by SQL `PREPARE` / `EXECUTE` (decisions/0007): each text is
 * prepared once per connection, named by `prefix` and a digest of the text (apart from the
 * protocol-level names of src/storage/prepared.ts), and run with its values written in as literals.
 * A text sent with its literals is parsed and planned on every batch; a prepared one is parsed once,
 * and planned once where the plan cache lets it. Which connection prepared what is kept by the client
 * object the pool hands out; a wrapper that hands out a new object per checkout only makes the text be
 * prepared again, which `prepareOnce` tolerates.
 */
export class PreparedTexts {
  private readonly names = new Map<string, string>();
  private readonly prepared = new WeakMap<SqlClient, Set<string>>();

  constructor(private readonly prefix: string) {}

  /** How to run `text` with `parameters` on `client`; undefined past the names' bound (send the text itself). */
  run(client: SqlClient, text: string, parameters: readonly unknown[]): PreparedRun | undefined {
    const name = this.nameOf(text);
    if (name === undefined) return undefined;
    const values = inlineParameters(parameters.map((_, i) => `$${String(i + 1)}`).join(', '), parameters);
    const execute = `EXECUTE ${name}${parameters.length === 0 ? '' : `(${values})`}`;
    return this.prepared.get(client)?.has(name) ? { name, execute } : { name, prepare: prepareOnce(name, text), execute };
  }

  /** Marks `names` prepared on `client`, once a message that prepared them has run without error. */
  settle(client: SqlClient, names: Iterable<string>): void {
    const known = this.prepared.get(client) ?? new Set<string>();
    for (const name of names) known.add(name);
    this.prepared.set(client, known);
  }

  /**
   * After a message on `client` failed with `error`: when a statement was missing (SQLSTATE 26000,
   * the connection lost what it prepared, a reset), forgets what it prepared, so that the next
   * message prepares again rather than failing the same way. Any other failure (a refused claim or
   * check, a conflict) leaves the statements where they are, and known.
   */
  failed(client: SqlClient, error: unknown): void {
    if ((error as { code?: unknown } | null)?.code === MISSING_STATEMENT) this.prepared.delete(client);
  }

  private nameOf(text: string): string | undefined {
    const named = this.names.get(text);
    if (named !== undefined || this.names.size >= MAX_NAMES) return named;
    // Named by the text itself: hubs that share a pool over time (a restart in one process) must never
    // find a name prepared for another text, which `prepareOnce` would keep.
    const name = `${this.prefix}${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
    this.names.set(text, name);
    return name;
  }
}
