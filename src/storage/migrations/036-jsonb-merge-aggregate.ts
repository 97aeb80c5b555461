/**
 * `jsonb_merge_agg(patch)`: the objects merged in the order they come, later keys winning (the `||`
 * of them all; NULLs are skipped). A rebuild folds a catalog entity's events into its row in SQL with
 * it (src/projections/sql-fold.ts): the created event's fields, then each change over them. No
 * initial value: the first object is the state as it is, so a stream of one event merges nothing.
 */
export const sql = `
CREATE AGGREGATE jsonb_merge_agg(jsonb) (SFUNC = jsonb_concat, STYPE = jsonb);
`;
