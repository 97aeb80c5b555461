import pg from 'pg';

/**
 * Named prepared statements for the statements the service repeats (PostgreSQL server only).
 *
 * Planning is most of what a short read costs PostgreSQL here: the catalog tables carry a dozen
 * indexes each for the planner to weigh, so a one-row lookup by id spends longer being planned than
 * being run. A statement text seen a second time gets a name; each connection then parses it once,
 * and PostgreSQL reuses the plan (docs/benchmarks.md, "GraphQL throughput", for the figures).
 *
 * Bounded: at most `maxNames` distinct texts get a name (the first ones repeated; the service's
 * texts are a fixed set, a GraphQL selection adding a few), others run unnamed as before. Only
 * single statements are named (a text with `;` may hold several, which only the simple protocol
 * runs), and never a `*` select or `RETURNING *`: a column added by a newer replica's migration
 * would fail such a prepared statement with "cached plan must not change result type". A text
 * holding PLAN_EACH_CALL is never named.
 */
export interface StatementNamer {
  /** The name to prepare `text` under, or undefined to run it unnamed. */
  nameOf(text: string): string | undefined;
  /** Distinct texts named so far. */
  readonly size: number;
}

/**
 * Put in a statement's text, runs it unnamed: PostgreSQL then plans it with its parameters on every
 * call. For lookups whose best plan changes as their table grows: a connection keeps the generic plan
 * it settled on after five runs until the table is analysed again, so a plan made while `events` held
 * a few hundred rows (a sequential scan) stays one as the log grows, and where autovacuum is late or
 * off every read of a stream scans the whole log (1 ms per call at 20,000 events, 410 pages).
 */
export const PLAN_EACH_CALL = '/* plan each call */';

// A leading parenthesis: the first branch of a UNION (src/storage/id-batch.ts).
const PREPARABLE = /^\s*\(?\s*(?:select|insert|update|delete|with)\b/i;
const STAR_SELECT = /(?:^|[\s,])(?:"?\w+"?\.)?\*\s*(?:,|from\b|$)/i;
/** First sightings kept to tell a repeated text from a one-off; forgotten in bulk past this many. */
const SEEN_LIMIT = 10_000;

/** Names repeated statement texts, at most `maxNames` per pool. */
export function createStatementNamer(maxNames = 1000): StatementNamer {
  const names = new Map<string, string>();
  let seen = new Set<string>();
  return {
    nameOf(text) {
      // Several statements in one text (a batch's COMMIT with its writes, kilobytes of literals) are
      // never named: ruled out before the lookup hashes the text and the patterns scan it.
      if (text.includes(';')) return undefined;
      const named = names.get(text);
      if (named !== undefined) return named;
      if (names.size >= maxNames || !PREPARABLE.test(text) || STAR_SELECT.test(text) || text.includes(PLAN_EACH_CALL)) return undefined;
      if (!seen.has(text)) {
        if (seen.size >= SEEN_LIMIT) seen = new Set();
        seen.add(text);
        return undefined;
      }
      seen.delete(text);
      const name = `il_${String(names.size + 1)}`;
      names.set(text, name);
      return name;
    },
    get size() {
      return names.size;
    },
  };
}

// pg answers a query object's callback with null or undefined for no error.
type QueryCallback = (error: Error | null | undefined, result: pg.QueryResult) => void;

/** A query object for `text`, named `name` (pg's types leave the name out; pg reads it when it sends). */
function namedQuery(name: string, text: string, values: unknown[], callback: QueryCallback): pg.Query {
  const statement = new pg.Query(text, values, callback as (error: Error | undefined, result: unknown) => void);
  Object.assign(statement, { name });
  return statement;
}

/**
 * Makes `client.query(text[, values][, callback])` (what Kysely and pg.Pool call) run named
 * statements from `namer`; a query config object passes through unchanged.
 *
 * A named statement goes as a `pg.Query` built from its text, then named: handed a config object
 * instead, pg copies it property by property (`Object.getOwnPropertyDescriptors`), which cost a
 * single GraphQL read 2.8% of the service's time. A query object is sent as it is, its answer
 * given to its callback (a promise's, without one).
 */
export function prepareRepeatedStatements(client: pg.Client, namer: StatementNamer): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const patched = (...args: unknown[]): unknown => {
    const [text, second, third] = args;
    // pg's shapes: (text), (text, values), (text, callback), (text, values, callback).
    const values = typeof second === 'function' || second === undefined ? [] : second;
    const callback = (typeof second === 'function' ? second : third) as QueryCallback | undefined;
    if (typeof text === 'string' && Array.isArray(values)) {
      const name = namer.nameOf(text);
      if (name !== undefined) return named(name, text, values, callback);
    }
    return query(...args);
  };
  const named = (name: string, text: string, values: unknown[], callback: QueryCallback | undefined): unknown => {
    if (callback !== undefined) return query(namedQuery(name, text, values, callback));
    return new Promise<pg.QueryResult>((resolve, reject) => {
      query(namedQuery(name, text, values, (error, result) => (error ? reject(error) : resolve(result))));
    });
  };
  // pg types `query` as a dozen overloads; the patch forwards every call shape unchanged (configs gain a name).
  client.query = patched as unknown as typeof client.query;
}
