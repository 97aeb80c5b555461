/**
 * `infraledger_readable_below(after)`: the readable bound of `$all` as the calling statement's
 * snapshot sees the log (docs/decisions/0006-concurrent-append.md). Every position below it is final.
 * First the snapshot's xmin (every transaction below it has ended); when committed events wait at or
 * beyond that bound after `after`, the bound is refined: in-progress transactions that cannot append
 * here are left out, those running in another database of the server and those marked as never
 * appending (src/storage/not-appending.ts: they hold the shared advisory lock 7147/1; a rebuild's
 * writes and index builds, projection batches). A transaction that ended since the snapshot, or one
 * whose database or mark cannot be seen, still holds the bound back.
 *
 * STABLE, so it runs in its caller's snapshot: the bound is exact for the events the caller reads in
 * the same statement. Every reader of the bound calls it (the store's pages, head and counts, and
 * `infraledger_read_page`, replaced here to do so): the bound is written once, here.
 */
export const sql = `
CREATE OR REPLACE FUNCTION infraledger_readable_below(p_after bigint) RETURNS bigint
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
  v_snap pg_snapshot := pg_current_snapshot();
  v_xmin bigint := pg_snapshot_xmin(v_snap)::text::bigint;
BEGIN
  -- Probes beyond a bound walk the primary key in order (ORDER BY … LIMIT 1): as EXISTS, a generic
  -- plan may scan the log from its start for a row that is near its end.
  IF (SELECT e.global_position FROM events e WHERE e.global_position >= greatest(p_after + 1, v_xmin * 65536)
       ORDER BY e.global_position LIMIT 1) IS NULL THEN
    RETURN 65536 * v_xmin;
  END IF;
  RETURN 65536 * coalesce((
    SELECT min(x::text::bigint) FROM pg_snapshot_xip(v_snap) AS x
     WHERE x::text::bigint % 4294967296 NOT IN (
       SELECT a.backend_xid::text::bigint FROM pg_stat_get_activity(NULL) AS a
        WHERE a.backend_xid IS NOT NULL AND a.datid <> (SELECT oid FROM pg_database WHERE datname = current_database())
       UNION ALL
       -- A marked transaction's own ids: it holds each exclusively, matched to its mark by virtual
       -- transaction id (a transaction merely waiting for an id holds no granted lock on it).
       SELECT l.transactionid::text::bigint FROM pg_locks AS l
        WHERE l.locktype = 'transactionid' AND l.mode = 'ExclusiveLock' AND l.granted AND l.transactionid IS NOT NULL
          AND l.virtualtransaction IN (
            SELECT m.virtualtransaction FROM pg_locks AS m
             WHERE m.locktype = 'advisory' AND m.classid = 7147 AND m.objid = 1 AND m.objsubid = 2 AND m.granted))
  ), pg_snapshot_xmax(v_snap)::text::bigint);
END
$fn$;

CREATE OR REPLACE FUNCTION infraledger_read_page(p_after bigint, p_limit int)
RETURNS TABLE (global_position bigint, event_id uuid, stream_id text, stream_revision bigint, type text, data jsonb,
               metadata jsonb, recorded_at timestamptz, held boolean)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH readable AS MATERIALIZED (SELECT infraledger_readable_below(p_after) AS below)
  (SELECT e.global_position, e.event_id, e.stream_id, e.stream_revision, e.type, e.data, e.metadata, e.recorded_at, false
     FROM events e WHERE e.global_position > p_after AND e.global_position < (SELECT below FROM readable)
    ORDER BY e.global_position LIMIT p_limit)
  UNION ALL
  SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, true FROM readable
   WHERE (SELECT e.global_position FROM events e WHERE e.global_position >= greatest(p_after + 1, readable.below)
           ORDER BY e.global_position LIMIT 1) IS NOT NULL;
END
$fn$;
`;
