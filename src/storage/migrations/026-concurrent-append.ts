/**
 * Appends without a global serial section (docs/decisions/0006-concurrent-append.md), replacing the
 * append function of migration 003 (same arguments, same result).
 *
 * A position is the appending transaction's id times 65,536 plus the event's ordinal in that
 * transaction: positions follow transaction ids, so a reader that stops below
 * `pg_snapshot_xmin(pg_current_snapshot()) * 65536` never passes an event whose transaction could
 * still commit, while appends to different streams commit in parallel. Events written before this
 * migration keep their (smaller) positions; the check below refuses to migrate a database whose
 * positions could overlap the new ones.
 *
 * No NOTIFY here (migration 003 sent one): PostgreSQL serialises the commits of notifying
 * transactions through their WAL flush, which would be a global serial section again. The store
 * notifies after the commit instead, in a transaction of its own (src/events/store/postgres.ts).
 *
 * Streams are locked per stream, in one order (by hash), for the transaction: exclusively where
 * events are written (so revisions are numbered one writer at a time and `any` never conflicts), and
 * shared where a write only asserts a revision (guards: a concurrent writer of that stream waits,
 * other guards do not).
 *
 * p_expected: 'any' | 'no_stream' | 'stream_exists' | '<revision>' per stream.
 * p_event_stream: for each event, the 1-based index of its stream in p_streams.
 */
export const sql = `
DO $check$
BEGIN
  IF (SELECT coalesce(max(global_position), 0) FROM events) >= pg_current_xact_id()::text::bigint * 65536 THEN
    RAISE EXCEPTION 'events hold positions beyond the transaction-id range: cannot switch to concurrent appends';
  END IF;
END
$check$;

ALTER TABLE events ALTER COLUMN global_position DROP IDENTITY IF EXISTS;

CREATE OR REPLACE FUNCTION infraledger_append(
  p_streams text[], p_expected text[], p_event_stream int[],
  p_ids uuid[], p_types text[], p_data jsonb[], p_metadata jsonb[]
) RETURNS TABLE (conflict_stream text, conflict_actual bigint, last_position bigint, heads bigint[])
LANGUAGE plpgsql AS $fn$
DECLARE
  v_first_write boolean := pg_current_xact_id_if_assigned() IS NULL;
  v_count int := coalesce(array_length(p_ids, 1), 0);
  v_lock record;
  v_heads bigint[] := '{}';
  v_head bigint;
  v_expected text;
  v_revisions bigint[] := '{}';
  v_event_streams text[] := '{}';
  v_base bigint;
  v_next bigint;
  v_stream int;
BEGIN
  FOR v_lock IN
    SELECT hashtext(s.stream) AS key, bool_or(s.written) AS exclusive
      FROM unnest(p_streams, array(SELECT i = ANY(p_event_stream) FROM generate_subscripts(p_streams, 1) AS i)) AS s(stream, written)
     GROUP BY 1 ORDER BY 1
  LOOP
    IF v_lock.exclusive THEN PERFORM pg_advisory_xact_lock(7146, v_lock.key);
    ELSE PERFORM pg_advisory_xact_lock_shared(7146, v_lock.key);
    END IF;
  END LOOP;
  FOR i IN 1 .. coalesce(array_length(p_streams, 1), 0) LOOP
    SELECT e.stream_revision INTO v_head FROM events e WHERE e.stream_id = p_streams[i] ORDER BY e.stream_revision DESC LIMIT 1;
    IF NOT FOUND THEN v_head := NULL; END IF;
    v_expected := p_expected[i];
    IF NOT (v_expected = 'any'
         OR (v_expected = 'no_stream' AND v_head IS NULL)
         OR (v_expected = 'stream_exists' AND v_head IS NOT NULL)
         OR (v_expected ~ '^[0-9]+$' AND v_head = v_expected::bigint)) THEN
      RETURN QUERY SELECT p_streams[i], v_head, NULL::bigint, NULL::bigint[];
      RETURN;
    END IF;
    v_heads := v_heads || coalesce(v_head, -1);
  END LOOP;
  IF v_count = 0 THEN
    RETURN QUERY SELECT NULL::text, NULL::bigint, NULL::bigint, v_heads;
    RETURN;
  END IF;
  FOR j IN 1 .. v_count LOOP
    v_stream := p_event_stream[j];
    v_heads[v_stream] := v_heads[v_stream] + 1;
    v_revisions := v_revisions || v_heads[v_stream];
    v_event_streams := v_event_streams || p_streams[v_stream];
  END LOOP;
  v_base := pg_current_xact_id()::text::bigint * 65536;
  v_next := v_base;
  IF NOT v_first_write THEN
    -- Not the transaction's first write: continue after its earlier events, if any.
    SELECT coalesce(max(e.global_position) + 1, v_base) INTO v_next FROM events e WHERE e.global_position >= v_base AND e.global_position < v_base + 65536;
  END IF;
  IF v_next + v_count > v_base + 65536 THEN
    RAISE EXCEPTION 'one transaction may append at most 65536 events';
  END IF;
  INSERT INTO events (global_position, event_id, stream_id, stream_revision, type, data, metadata)
  SELECT v_next + e.ordinality - 1, e.id, e.stream, e.revision, e.type, e.data, e.metadata
    FROM unnest(p_ids, v_event_streams, v_revisions, p_types, p_data, p_metadata)
         WITH ORDINALITY AS e(id, stream, revision, type, data, metadata, ordinality);
  RETURN QUERY SELECT NULL::text, NULL::bigint, v_next + v_count - 1, v_heads;
END
$fn$;
`;
