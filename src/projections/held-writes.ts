import { inlineParameters } from '../storage/literals.js';
import type { SqlClient, SqlResult } from '../storage/pool.js';
import type { PreparedTexts } from './prepared-texts.js';
import type { BatchClient, WriteOptions } from './projection.js';

/**
 * The plan cache modes a batch switches between. A batch transaction plans its statements for the
 * tables as they are now (force_custom_plan, src/storage/pool.ts); a write whose plan cannot depend on
 * them (`planOnce`) keeps its one generic plan instead, planned on its first EXECUTE on a connection.
 */
const GENERIC_PLANS = 'SET LOCAL plan_cache_mode = force_generic_plan';
const CUSTOM_PLANS = 'SET LOCAL plan_cache_mode = force_custom_plan';

/** The statements `take` hands over, and what to tell the hub once they ran (or failed). */
export interface TakenWrites {
  readonly statements: string[];
  /** How many of them are projections' writes. */
  readonly writes: number;
  /** After the message holding them ran without error: its PREPAREs are on the connection. */
  settle(): void;
  /** After it failed with `error` (PreparedTexts.failed). */
  failed(error: unknown): void;
}

/**
 * A batch transaction that holds its projections' writes (BatchClient.write) and sends them with the
 * next statement that needs an answer, or, through `take`, with the COMMIT: a batch of creates is
 * then one message of BEGIN, inserts, checkpoints and COMMIT instead of a round trip for each.
 * `opening` statements (BEGIN and what must come first) are held ahead of everything else; they leave
 * the transaction planning for the tables as they are (force_custom_plan). With `prepared`, a write
 * marked `planOnce` is sent as the EXECUTE of a statement prepared once per connection, under a
 * generic plan: parsed and planned once instead of on every batch (decisions/0007).
 */
export class HeldWrites implements BatchClient {
  private held: string[];
  private writes = 0;
  private generic = false;
  private preparing = new Set<string>();

  constructor(
    private readonly tx: SqlClient,
    opening: readonly string[] = [],
    private readonly prepared?: PreparedTexts,
  ) {
    this.held = [...opening];
  }

  write(text: string, params: readonly unknown[] = [], options?: WriteOptions): Promise<void> {
    const run = options?.planOnce ? this.prepared?.run(this.tx, text, params) : undefined;
    if (run) {
      this.plans(true);
      if (run.prepare !== undefined && !this.preparing.has(run.name)) {
        this.held.push(run.prepare);
        this.preparing.add(run.name);
      }
      this.held.push(run.execute);
    } else {
      this.plans(false);
      this.held.push(inlineParameters(text, params));
    }
    this.writes++;
    return Promise.resolve();
  }

  async query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>> {
    // Whatever was held is sent first: the read sees it, and its error surfaces here.
    const taken = this.take();
    if (taken.statements.length > 0) {
      try {
        await this.tx.query(taken.statements.join(';\n'));
      } catch (error) {
        taken.failed(error);
        throw error;
      }
      taken.settle();
    }
    return this.tx.query<R>(text, params);
  }

  /**
   * The statements held and not yet sent, for the caller to send (with its COMMIT), the transaction
   * left planning as it began; the caller reports how the message went (`settle` or `failed`).
   */
  take(): TakenWrites {
    this.plans(false);
    const statements = this.held;
    const writes = this.writes;
    const preparing = this.preparing;
    this.held = [];
    this.writes = 0;
    this.preparing = new Set();
    const { tx, prepared } = this;
    return {
      statements,
      writes,
      settle: () => prepared?.settle(tx, preparing),
      failed: (error) => prepared?.failed(tx, error),
    };
  }

  release(destroy?: boolean | Error): void {
    this.tx.release(destroy);
  }

  /** Holds the switch to generic (or back to custom) plans when the transaction is not planning so already. */
  private plans(generic: boolean): void {
    if (this.generic === generic) return;
    this.held.push(generic ? GENERIC_PLANS : CUSTOM_PLANS);
    this.generic = generic;
  }
}
