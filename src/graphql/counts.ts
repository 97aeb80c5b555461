import { sql } from 'kysely';
import { readableRows } from '../read/entity-access.js';
import { sameTurnLoader } from '../storage/id-batch.js';
import { principalOf, type GraphContext } from './context.js';

/**
 * `resourcesCount` on templates and source code versions (the upstream's dialect, docs/contract.md
 * §12): how many live resources name the entity (their template, or the version they run) that the
 * caller may read. Counted for every entity of one answer in one statement (the resolvers of one
 * request ask in the same turn). Counted now, also in a reading as of a past point.
 */
const countsBy = (column: 'template_id' | 'source_code_version_id') =>
  sameTurnLoader<GraphContext, number>(async (context, ids) => {
    const rule = readableRows(principalOf(context), 'resource', 'r');
    const { rows } = await sql<{ referenced: string; count: string }>`SELECT ${sql.ref(`r.${column}`)} AS referenced,
      count(*)::text AS count FROM resources r
      WHERE r.deleted_at IS NULL AND ${sql.ref(`r.${column}`)} = ANY(${[...ids]}::uuid[]) AND ${rule ?? sql<boolean>`true`}
      GROUP BY 1`.execute(context.services.db);
    return new Map(rows.map((row) => [row.referenced, Number(row.count)]));
  });

/** The loader hands the entity's id under the field's own name (model.ts); this turns it into the count. */
const resolverOf = (load: ReturnType<typeof countsBy>) => ({
  resourcesCount: async (parent: unknown, _args: unknown, context: GraphContext): Promise<number> =>
    (await load(context, String((parent as { readonly resourcesCount?: unknown }).resourcesCount))) ?? 0,
});

/** Field resolvers of counts on object types. */
export const countResolvers = {
  Template: resolverOf(countsBy('template_id')),
  SourceCodeVersion: resolverOf(countsBy('source_code_version_id')),
};
