import { inlineParameters } from '../storage/literals.js';
import type { SqlClient, SqlResult } from '../storage/pool.js';
import type { BatchClient } from './projection.js';

/**
 * A batch transaction that holds its projections' writes (BatchClient.write) and sends them with the
 * next statement that needs an answer, or, through `take`, with the COMMIT: a batch of creates is
 * then one message of BEGIN, inserts, checkpoints and COMMIT instead of a round trip for each.
 * `opening` statements (BEGIN and what must come first) are held ahead of everything else.
 */
export class HeldWrites implements BatchClient {
  private held: string[];
  private writes = 0;

  constructor(
    private readonly tx: SqlClient,
    opening: readonly string[] = [],
  ) {
    this.held = [...opening];
  }

  write(text: string, params: readonly unknown[] = []): Promise<void> {
    this.held.push(inlineParameters(text, params));
    this.writes++;
    return Promise.resolve();
  }

  async query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>> {
    // Whatever was held is sent first: the read sees it, and its error surfaces here.
    const { statements } = this.take();
    if (statements.length > 0) await this.tx.query(statements.join(';\n'));
    return this.tx.query<R>(text, params);
  }

  /** The statements held and not yet sent, for the caller to send (with its COMMIT), and how many are projections' writes. */
  take(): { readonly statements: string[]; readonly writes: number } {
    const taken = { statements: this.held, writes: this.writes };
    this.held = [];
    this.writes = 0;
    return taken;
  }

  release(destroy?: boolean | Error): void {
    this.tx.release(destroy);
  }
}
