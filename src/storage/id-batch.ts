/**
 * Lookups by id that arrive in the same event-loop turn, answered by one statement.
 *
 * Round trips are most of what a short lookup costs on both sides (PostgreSQL's per-statement work,
 * pg's protocol, a context switch each way on a small machine), and a busy service starts several
 * of the same lookup in one turn: the projection hub wakes every writer of a batch at once, and
 * requests read in one poll are authenticated together.
 *
 * A batch of several ids goes as ID_BATCH_SIZE lookups of one id each, joined by UNION ALL and padded
 * by repeating the first id: one text, so it is prepared (src/storage/prepared.ts), and each branch
 * keeps the plan of a lookup by primary key. Two other shapes plan badly: an array parameter
 * (`id = ANY($1)`) is planned on every call (a custom plan knows the array's length, so it always
 * looks cheaper than the generic one: 0.18 ms planning for a 0.08 ms read), and a fixed list
 * (`id = ANY(ARRAY[$1, …])`) or a join to the ids gets a generic plan that scans the table when it is
 * made while the table is small, kept as the table grows where autovacuum does not analyse it.
 */

/** Ids per statement: a busy service batches two to four lookups per turn. */
export const ID_BATCH_SIZE = 4;

/**
 * The batched form of `lookup`, a statement whose only parameter is `$1`, the id: ID_BATCH_SIZE
 * copies of it joined by UNION ALL, the i-th taking `$i`. Rows of a repeated id come once per copy.
 */
export function batchedLookup(lookup: string): string {
  if (/\$(?!1\b)\d+/.test(lookup)) throw new TypeError('a batched lookup takes one parameter, $1');
  return Array.from({ length: ID_BATCH_SIZE }, (_, i) => `(${lookup.replace(/\$1\b/g, `$${String(i + 1)}`)})`).join(' UNION ALL ');
}

/**
 * The parameters of each statement reading `ids`: a lone id alone (for the single lookup), more in
 * groups of ID_BATCH_SIZE, each padded to that size with its first id (for the batched one).
 */
export function idGroups(ids: readonly string[]): string[][] {
  if (ids.length === 1) return [[...ids]];
  const groups: string[][] = [];
  for (let i = 0; i < ids.length; i += ID_BATCH_SIZE) {
    const group = ids.slice(i, i + ID_BATCH_SIZE);
    const first = group[0] as string;
    while (group.length < ID_BATCH_SIZE) group.push(first);
    groups.push(group);
  }
  return groups;
}

/**
 * A loader answering `load(scope, key)` calls made in the same turn with one call of `loadMany`
 * (after setImmediate), per `scope` (e.g. the database handle). Each caller gets the value of its
 * key, or undefined; duplicates share it; a failed `loadMany` rejects every caller of its turn.
 */
export function sameTurnLoader<S extends object, V>(
  loadMany: (scope: S, keys: readonly string[]) => Promise<ReadonlyMap<string, V>>,
): (scope: S, key: string) => Promise<V | undefined> {
  const pending = new WeakMap<S, { readonly keys: Set<string>; readonly values: Promise<ReadonlyMap<string, V>> }>();
  return async (scope, key) => {
    let batch = pending.get(scope);
    if (!batch) {
      const keys = new Set<string>();
      const values = new Promise<ReadonlyMap<string, V>>((resolve, reject) => {
        setImmediate(() => {
          pending.delete(scope);
          loadMany(scope, [...keys]).then(resolve, reject);
        });
      });
      batch = { keys, values };
      pending.set(scope, batch);
    }
    batch.keys.add(key);
    return (await batch.values).get(key);
  };
}
