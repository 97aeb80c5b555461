/**
 * `infraledger_claim_projections(names, keys, expected, reached)`: how a projection batch of writes
 * only opens (src/projections/hub.ts), in one statement. For each named projection it takes the
 * advisory lock (keys), checks that the checkpoint is where this process left it (expected, NULL for
 * none) and not failed, and moves it to where the batch brings it (reached). If any of them is held
 * by another process or moved, it raises IL001 and the batch's transaction writes nothing: the hub
 * then finds out which, on its explicit path.
 *
 * A function so that its statement is planned once per connection. The anonymous `DO` block it
 * replaces was compiled and planned on every batch, a third of PostgreSQL's time for a batch of one
 * create (docs/benchmarks.md, 2026-11-29 afternoon), and the checkpoints were moved by a statement
 * of their own.
 */
export const sql = `
CREATE OR REPLACE FUNCTION infraledger_claim_projections(p_names text[], p_keys bigint[], p_expected bigint[], p_reached bigint[])
RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  v_claimed int;
BEGIN
  UPDATE projection_checkpoints AS c SET position = k.reached, updated_at = now()
    FROM unnest(p_names, p_keys, p_expected, p_reached) AS k(name, key, expected, reached)
   WHERE c.name = k.name AND pg_try_advisory_xact_lock(k.key) AND c.status <> 'failed' AND c.position IS NOT DISTINCT FROM k.expected;
  GET DIAGNOSTICS v_claimed = ROW_COUNT;
  IF v_claimed <> coalesce(array_length(p_names, 1), 0) THEN
    RAISE EXCEPTION 'projection checkpoints moved or held elsewhere' USING ERRCODE = 'IL001';
  END IF;
END
$fn$;
`;
