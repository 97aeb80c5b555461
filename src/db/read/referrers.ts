import type { Referrer } from '../../commands/references.js';
import { AppError } from '../../errors.js';
import type { Db } from '../kysely.js';

/** A referrer as a client sees it in a 409: its kind, id, the field that points, and its name. */
export interface NamedReferrer {
  readonly type: string;
  readonly id: string;
  readonly field: string;
  readonly name: string;
}

/** Read tables holding the names of each referring kind (more arrive with the entities issue). */
const NAME_TABLES = { template: 'templates', integration: 'integrations' } as const;

/**
 * The write model knows who refers to an entity by kind and id; people want names. Looks them up in
 * the read tables (falling back to the id) and rewrites the 409's message and details.
 */
export async function nameReferrers(db: Db, error: unknown): Promise<unknown> {
  if (!(error instanceof AppError) || error.code !== 'CONFLICT' || !Array.isArray(error.details.referrers)) return error;
  const referrers = error.details.referrers as Referrer[];
  const named: NamedReferrer[] = [];
  for (const referrer of referrers) {
    // Every catalog table has id and name; typing it as `templates` only satisfies Kysely's schema types.
    const table = (NAME_TABLES as Partial<Record<string, string>>)[referrer.kind] as 'templates' | undefined;
    const row = table ? await db.selectFrom(table).select('name').where('id', '=', referrer.id).executeTakeFirst() : undefined;
    named.push({ type: referrer.kind, id: referrer.id, field: referrer.field, name: row?.name ?? referrer.id });
  }
  const kind = error.message.match(/^the (\w+) is still referenced/)?.[1] ?? 'entity';
  return new AppError('CONFLICT', `${kind} is still referenced by ${named.map((r) => `${r.type} "${r.name}"`).join(', ')}`, {
    details: { referrers: named },
    cause: error,
  });
}
