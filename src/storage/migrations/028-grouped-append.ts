/**
 * Group commit (docs/decisions/0006-concurrent-append.md): one transaction appends the writes of
 * several commands, each decided on its own. The writes that queue while an append is on its way go
 * together in the next one, so a busy service pays one round trip, one statement and one commit for
 * several commands.
 *
 * Each group is one command's write (the arguments of `infraledger_append`, with `p_groups` giving
 * each stream's group): a group whose expected revisions do not hold writes nothing and reports its
 * conflict, the others are written. Groups are checked in order, so a later group sees an earlier
 * group's events (two creates reserving the same name: the second one conflicts). Every stream of
 * every group is locked first, in one order (by hash) as `infraledger_append` does, so grouped and
 * single appends never wait on each other in a cycle.
 *
 * `infraledger_append` (one write) becomes this function with a single group: one implementation of
 * the locking, the revision checks and the numbering of positions and revisions.
 *
 * p_groups: for each stream, the 1-based group it belongs to (a stream appears once per group).
 */
export const sql = `
CREATE OR REPLACE FUNCTION infraledger_append_groups(
  p_groups int[], p_streams text[], p_expected text[], p_event_stream int[],
  p_ids uuid[], p_types text[], p_data jsonb[], p_metadata jsonb[]
) RETURNS TABLE (grp int, conflict_stream text, conflict_actual bigint, last_position bigint, heads bigint[])
LANGUAGE plpgsql AS $fn$
DECLARE
  v_first_write boolean := pg_current_xact_id_if_assigned() IS NULL;
  v_lock record;
  v_group int;
  v_groups int := coalesce((SELECT max(g) FROM unnest(p_groups) AS g), 0);
  -- Each stream's head as its group sees it: the stream's last revision, then its group's events'.
  v_heads bigint[] := array_fill(NULL::bigint, ARRAY[coalesce(array_length(p_streams, 1), 0)]);
  v_head bigint;
  v_expected text;
  v_conflict boolean;
  v_base bigint;
  v_next bigint;
  v_count int;
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
  v_base := pg_current_xact_id()::text::bigint * 65536;
  v_next := v_base;
  IF NOT v_first_write THEN
    -- Not the transaction's first write: continue after its earlier events, if any.
    SELECT coalesce(max(e.global_position) + 1, v_base) INTO v_next FROM events e WHERE e.global_position >= v_base AND e.global_position < v_base + 65536;
  END IF;
  FOR v_group IN 1 .. v_groups LOOP
    v_conflict := false;
    FOR i IN 1 .. coalesce(array_length(p_streams, 1), 0) LOOP
      CONTINUE WHEN p_groups[i] <> v_group;
      SELECT e.stream_revision INTO v_head FROM events e WHERE e.stream_id = p_streams[i] ORDER BY e.stream_revision DESC LIMIT 1;
      IF NOT FOUND THEN v_head := NULL; END IF;
      v_expected := p_expected[i];
      IF NOT (v_expected = 'any'
           OR (v_expected = 'no_stream' AND v_head IS NULL)
           OR (v_expected = 'stream_exists' AND v_head IS NOT NULL)
           OR (v_expected ~ '^[0-9]+$' AND v_head = v_expected::bigint)) THEN
        RETURN QUERY SELECT v_group, p_streams[i], v_head, NULL::bigint, NULL::bigint[];
        v_conflict := true;
        EXIT;
      END IF;
      v_heads[i] := coalesce(v_head, -1);
    END LOOP;
    CONTINUE WHEN v_conflict;
    INSERT INTO events (global_position, event_id, stream_id, stream_revision, type, data, metadata)
    SELECT v_next + row_number() OVER (ORDER BY e.ordinal) - 1, e.id, p_streams[e.stream], v_heads[e.stream] + row_number() OVER (PARTITION BY e.stream ORDER BY e.ordinal),
           e.type, e.data, e.metadata
      FROM unnest(p_event_stream, p_ids, p_types, p_data, p_metadata) WITH ORDINALITY AS e(stream, id, type, data, metadata, ordinal)
     WHERE p_groups[e.stream] = v_group;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    IF v_count > 0 THEN
      IF v_next + v_count > v_base + 65536 THEN
        RAISE EXCEPTION 'one transaction may append at most 65536 events';
      END IF;
      FOR j IN 1 .. array_length(p_event_stream, 1) LOOP
        CONTINUE WHEN p_groups[p_event_stream[j]] <> v_group;
        v_heads[p_event_stream[j]] := v_heads[p_event_stream[j]] + 1;
      END LOOP;
      v_next := v_next + v_count;
    END IF;
    RETURN QUERY SELECT v_group, NULL::text, NULL::bigint, CASE WHEN v_count > 0 THEN v_next - 1 END,
      array(SELECT v_heads[i] FROM generate_subscripts(p_streams, 1) AS i WHERE p_groups[i] = v_group ORDER BY i);
  END LOOP;
END
$fn$;

CREATE OR REPLACE FUNCTION infraledger_append(
  p_streams text[], p_expected text[], p_event_stream int[],
  p_ids uuid[], p_types text[], p_data jsonb[], p_metadata jsonb[]
) RETURNS TABLE (conflict_stream text, conflict_actual bigint, last_position bigint, heads bigint[])
LANGUAGE sql AS $fn$
  SELECT g.conflict_stream, g.conflict_actual, g.last_position, g.heads
    FROM infraledger_append_groups(array_fill(1, ARRAY[coalesce(array_length(p_streams, 1), 0)]),
                                   p_streams, p_expected, p_event_stream, p_ids, p_types, p_data, p_metadata) AS g
$fn$;
`;
