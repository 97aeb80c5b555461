/**
 * `infraledger_checked(condition, value)`: `value` when `condition` is true; otherwise it raises IL002
 * and the statement, with its transaction, writes nothing. An append whose writer asked for a
 * condition (src/events/store/port.ts, `AppendCondition`: a REST write for a caller not yet
 * confirmed, docs/decisions/0003-speculative-session-check.md) passes its first argument through it,
 * so the condition is evaluated in the append's own statement before any event is inserted.
 *
 * VOLATILE, so that it is evaluated when the statement runs, never folded while it is planned.
 */
export const sql = `
CREATE OR REPLACE FUNCTION infraledger_checked(p_condition boolean, p_value text[]) RETURNS text[]
LANGUAGE plpgsql VOLATILE AS $fn$
BEGIN
  IF p_condition IS NOT TRUE THEN
    RAISE EXCEPTION 'the append''s condition does not hold' USING ERRCODE = 'IL002';
  END IF;
  RETURN p_value;
END
$fn$;
`;
