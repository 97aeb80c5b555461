import { sql } from 'kysely';
import { readableRows } from '../read/entity-access.js';
import { principalOf, type GraphContext } from './context.js';

/**
 * `Template.resourcesCount` (the upstream's dialect, docs/contract.md §12): how many live resources
 * were requested from the template that the caller may read. Counted for every template of one
 * answer in one statement: the templates' resolvers of one request join a batch that runs once they
 * have all asked (on the next turn of the event loop). Counted now, also in a reading as of a past point.
 */

interface Batch {
  readonly ids: Set<string>;
  readonly counts: Promise<Map<string, number>>;
}

const pending = new WeakMap<GraphContext, Batch>();

async function countResources(context: GraphContext, ids: readonly string[]): Promise<Map<string, number>> {
  const rule = readableRows(principalOf(context), 'resource', 'r');
  const { rows } = await sql<{ template_id: string; count: string }>`SELECT r.template_id, count(*)::text AS count FROM resources r
    WHERE r.deleted_at IS NULL AND r.template_id = ANY(${[...ids]}::uuid[]) AND ${rule ?? sql<boolean>`true`}
    GROUP BY r.template_id`.execute(context.services.db);
  return new Map(rows.map((row) => [row.template_id, Number(row.count)]));
}

function resourcesCountOf(context: GraphContext, id: string): Promise<number> {
  let batch = pending.get(context);
  if (!batch) {
    const ids = new Set<string>();
    const counts = new Promise<Map<string, number>>((resolve, reject) => {
      setImmediate(() => {
        pending.delete(context);
        countResources(context, [...ids]).then(resolve, reject);
      });
    });
    batch = { ids, counts };
    pending.set(context, batch);
  }
  batch.ids.add(id);
  return batch.counts.then((counts) => counts.get(id) ?? 0);
}

/** Field resolvers of counts on object types. */
export const countResolvers = {
  Template: {
    // The loader presents the template's id under the field's own name (model.ts).
    resourcesCount: (parent: unknown, _args: unknown, context: GraphContext): Promise<number> =>
      resourcesCountOf(context, String((parent as { readonly resourcesCount?: unknown }).resourcesCount)),
  },
};
