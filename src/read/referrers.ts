import type { Referrer } from '../commands/references.js';
import { AppError } from '../errors.js';
import { sql } from 'kysely';
import type { Db } from '../storage/kysely.js';

/** A referrer as a client sees it in a 409: its kind, id, the field that points, and its name. */
export interface NamedReferrer {
  readonly type: string;
  readonly id: string;
  readonly field: string;
  readonly name: string;
}

/** Where each referring kind's human name lives (more kinds arrive with the entities issue). */
const NAME_COLUMNS: Partial<Record<string, { table: string; column: string }>> = {
  template: { table: 'templates', column: 'name' },
  integration: { table: 'integrations', column: 'name' },
  secret: { table: 'secrets', column: 'name' },
  workspace: { table: 'workspaces', column: 'name' },
  team: { table: 'teams', column: 'name' },
  source_code: { table: 'source_codes', column: 'identifier' },
  source_code_version: { table: 'source_code_versions', column: 'identifier' },
  storage: { table: 'storages', column: 'name' },
  executor: { table: 'executors', column: 'name' },
  resource: { table: 'resources', column: 'name' },
};

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
