import { Kysely, PostgresDialect, type LogEvent } from 'kysely';
import type { SqlPool } from './pool.js';
import type { Database } from './schema.js';

/** The typed query builder over the read tables. */
export type Db = Kysely<Database>;

/** Kysely's settings (a hook that sees every statement). */
export interface KyselyOptions {
  /** Sees every compiled statement; tests use it to count and inspect the SQL a request issues. */
  readonly onQuery?: (sql: string, parameters: readonly unknown[]) => void;
}

/** A Kysely instance over either pool (node-postgres' Pool surface is what PostgresDialect takes). */
export function createDb(pool: SqlPool, options: KyselyOptions = {}): Db {
  const { onQuery } = options;
  return new Kysely<Database>({
    // PostgresDialect only calls connect() and end(); SqlPool has both with node-postgres' shapes.
    dialect: new PostgresDialect({ pool: pool as unknown as ConstructorParameters<typeof PostgresDialect>[0]['pool'] }),
    ...(onQuery
      ? {
          log: (event: LogEvent) => {
            if (event.level === 'query') onQuery(event.query.sql, event.query.parameters);
          },
        }
      : {}),
  });
}
