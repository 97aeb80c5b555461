/**
 * `infraledger_confirm_page(after, last, count)`: raises IL003 unless `(after, last]` of `$all` holds
 * exactly `count` events and every position up to `last` is final (below the readable bound,
 * `infraledger_readable_below`, migration 039). The projection hub sends it first in the transaction
 * of a batch it built from this process's own appends without reading them back
 * (src/events/store/port.ts, `BatchCheck`): the events it holds are committed in that range, so the
 * count says no other event is there, and the bound says none can still commit there. On IL003 the
 * batch rolls back and its page is read as any other.
 *
 * STABLE, so that the count and the bound see the calling statement's one snapshot: with two
 * snapshots, an event committing between them could be neither counted nor waited for.
 */
export const sql = `
CREATE OR REPLACE FUNCTION infraledger_confirm_page(p_after bigint, p_last bigint, p_count bigint) RETURNS void
LANGUAGE plpgsql STABLE AS $fn$
BEGIN
  IF (SELECT count(*) FROM events e WHERE e.global_position > p_after AND e.global_position <= p_last) <> p_count
     OR infraledger_readable_below(p_after) <= p_last THEN
    RAISE EXCEPTION 'the batch is not the log''s page after %', p_after USING ERRCODE = 'IL003';
  END IF;
END
$fn$;
`;
