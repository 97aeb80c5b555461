import type { Referrer } from '../commands/references.js';
import { AppError } from '../errors.js';
import { sql } from 'kysely';
import { DECLARED_ENTITIES } from '../model/catalog.js';
import type { Db } from '../storage/kysely.js';

/** A referrer as a client sees it in a 409: its kind, id, the field that points, and its name. */
export interface NamedReferrer {
  readonly type: string;
  readonly id: string;
  readonly field: string;
  readonly name: string;
}

/** Where each declared kind's human name lives: its `name`, else its `identifier` (source codes and their versions). */
const NAME_COLUMNS: Partial<Record<string, { table: string; column: string }>> = Object.fromEntries(
  DECLARED_ENTITIES.map((entity) => [entity.kind, { table: entity.table, column: 'name' in entity.fields ? 'name' : 'identifier' }]),
);

/**
 * The write model knows who refers to an entity by kind and id; people want names. Looks them up in
 * the read tables (falling back to the id) and rewrites the 409's message and details.
 */
export async function nameReferrers(db: Db, error: unknown): Promise<unknown> {
  if (!(error instanceof AppError) || error.code !== 'STILL_REFERENCED' || !Array.isArray(error.details.referrers)) return error;
  const referrers = error.details.referrers as Referrer[];
  const named: NamedReferrer[] = [];
  for (const referrer of referrers) {
    const where = NAME_COLUMNS[referrer.kind];
    const row = where
      ? await db
          .selectFrom(sql.table(where.table).as('t'))
          .select(sql<string>`${sql.ref(`t.${where.column}`)}`.as('name'))
          .where(sql.ref('t.id'), '=', referrer.id)
          .executeTakeFirst()
      : undefined;
    named.push({ type: referrer.kind, id: referrer.id, field: referrer.field, name: row?.name ?? referrer.id });
  }
  const kind = error.message.match(/^the (\w+) is still referenced/)?.[1] ?? 'entity';
  return new AppError('STILL_REFERENCED', `${kind} is still referenced by ${named.map((r) => `${r.type} "${r.name}"`).join(', ')}`, {
    details: { referrers: named },
    cause: error,
  });
}
