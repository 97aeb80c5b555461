import { sql, type RawBuilder } from 'kysely';

/**
 * "Not deleted" for a row looked up by primary key, in a form no partial index's `WHERE deleted_at IS
 * NULL` matches. With the plain form beside `id = …`, a plan made while the table is small (a generic
 * plan PostgreSQL keeps for a prepared statement, or one made before the table was ever analysed)
 * walks such an index, every live row, instead of the primary key, and keeps doing so as the table
 * grows where autovacuum does not analyse it (docs/decisions/0004-prepared-statements.md). The same
 * for GraphQL's reverse relations, by a foreign key that has a full index (migration 029). REST lists
 * keep the plain form for their partial indexes: they are planned per call.
 */
export const liveById = (deletedAt: string): RawBuilder<boolean> => sql<boolean>`(${sql.ref(deletedAt)} IS NULL) IS TRUE`;
