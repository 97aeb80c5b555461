import { inlineParameters } from '../storage/literals.js';
import type { SqlClient, SqlResult } from '../storage/pool.js';
import type { BatchClient } from './projection.js';

/**
 * A batch transaction that holds its projections' writes (BatchClient.write) and sends them with the
 * next statement that needs an answer, or, through `take`, with the COMMIT: a batch of creates is
 * then BEGIN and one message of inserts, checkpoints and COMMIT, two round trips instead of one per
 * projection more.
 */
export class HeldWrites implements BatchClient {
  private held: string[] = [];

  constructor(private readonly tx: SqlClient) {}

  write(text: string, params: readonly unknown[] = []): Promise<void> {
    this.held.push(inlineParameters(text, params));
    return Promise.resolve();
  }

  async query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>> {
    // Whatever was written before is sent first: the read sees it, and its error surfaces here.
    const held = this.take();
    if (held.length > 0) await this.tx.query(held.join(';\n'));
    return this.tx.query<R>(text, params);
  }

  /** The statements held and not yet sent, for the caller to send (with its COMMIT). */
  take(): string[] {
    const held = this.held;
    this.held = [];
    return held;
  }

  release(destroy?: boolean | Error): void {
    this.tx.release(destroy);
  }
}
