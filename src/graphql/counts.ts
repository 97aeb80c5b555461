import { sql } from 'kysely';
import { readableRows } from '../read/entity-access.js';
import { sameTurnLoader } from '../storage/id-batch.js';
import { principalOf, type GraphContext } from './context.js';

/**
 * `Template.resourcesCount` (the upstream's dialect, docs/contract.md §12): how many live resources
 * were requested from the template that the caller may read. Counted for every template of one
 * answer in one statement (the templates' resolvers of one request ask in the same turn). Counted
 * now, also in a reading as of a past point.
 */
const resourcesCounts = sameTurnLoader<GraphContext, number>(async (context, ids) => {
  const rule = readableRows(principalOf(context), 'resource', 'r');
  const { rows } = await sql<{ template_id: string; count: string }>`SELECT r.template_id, count(*)::text AS count FROM resources r
    WHERE r.deleted_at IS NULL AND r.template_id = ANY(${[...ids]}::uuid[]) AND ${rule ?? sql<boolean>`true`}
    GROUP BY r.template_id`.execute(context.services.db);
  return new Map(rows.map((row) => [row.template_id, Number(row.count)]));
});

/** Field resolvers of counts on object types. */
export const countResolvers = {
  Template: {
    // The loader presents the template's id under the field's own name (model.ts).
    resourcesCount: async (parent: unknown, _args: unknown, context: GraphContext): Promise<number> =>
      (await resourcesCounts(context, String((parent as { readonly resourcesCount?: unknown }).resourcesCount))) ?? 0,
  },
};
