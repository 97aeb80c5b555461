/**
 * The whole append as one statement, so the global append lock (see events/store/postgres.ts) is held
 * for one round trip instead of five. Checks each stream's expected revision (the head is an index
 * probe, not a scan), numbers the events, inserts them and notifies listeners. A revision mismatch is
 * returned, not raised, so the caller can tell it apart from an idempotent retry.
 *
 * p_expected: 'any' | 'no_stream' | 'stream_exists' | '<revision>' per stream.
 * p_event_stream: for each event, the 1-based index of its stream in p_streams.
 */
export const sql = `
CREATE FUNCTION infraledger_append(
  p_streams text[], p_expected text[], p_event_stream int[],
  p_ids uuid[], p_types text[], p_data jsonb[], p_metadata jsonb[]
) RETURNS TABLE (conflict_stream text, conflict_actual bigint, last_position bigint, heads bigint[])
LANGUAGE plpgsql AS $fn$
DECLARE
  v_heads bigint[] := '{}';
  v_head bigint;
  v_expected text;
  v_revisions bigint[] := '{}';
  v_event_streams text[] := '{}';
  v_last bigint;
  v_stream int;
BEGIN
  PERFORM pg_advisory_xact_lock(7146002);
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
  FOR j IN 1 .. coalesce(array_length(p_ids, 1), 0) LOOP
    v_stream := p_event_stream[j];
    v_heads[v_stream] := v_heads[v_stream] + 1;
    v_revisions := v_revisions || v_heads[v_stream];
    v_event_streams := v_event_streams || p_streams[v_stream];
  END LOOP;
  WITH inserted AS (
    INSERT INTO events (event_id, stream_id, stream_revision, type, data, metadata)
    SELECT e.id, e.stream, e.revision, e.type, e.data, e.metadata
      FROM unnest(p_ids, v_event_streams, v_revisions, p_types, p_data, p_metadata)
           WITH ORDINALITY AS e(id, stream, revision, type, data, metadata, ordinality)
     ORDER BY e.ordinality
    RETURNING global_position
  )
  SELECT max(global_position) INTO v_last FROM inserted;
  PERFORM pg_notify('infraledger_events', v_last::text);
  RETURN QUERY SELECT NULL::text, NULL::bigint, v_last, v_heads;
END
$fn$;
`;
