import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HeldWrites } from '../../src/projections/held-writes.js';
import { PreparedTexts } from '../../src/projections/prepared-texts.js';
import { PLAN_ONCE } from '../../src/projections/projection.js';
import type { SqlClient, SqlResult } from '../../src/storage/pool.js';

/** A connection that records each text sent and answers with no rows; `failing` makes the sends fail with that error. */
function connection() {
  const sent: string[] = [];
  const state: { failing?: Error } = {};
  const client: SqlClient = {
    query: <R>(text: string): Promise<SqlResult<R>> => {
      sent.push(text);
      if (state.failing) return Promise.reject(state.failing);
      return Promise.resolve({ rows: [] as R[], rowCount: 0 } as SqlResult<R>);
    },
    release: () => undefined,
  };
  return { client, sent, state };
}

/** PostgreSQL's answer to an EXECUTE of a statement the connection does not have. */
const missingStatement = (): Error => Object.assign(new Error(`prepared statement "${NAME}" does not exist`), { code: '26000' });

const INSERT = 'INSERT INTO templates (id, name) SELECT id, name FROM json_to_recordset($1::json) AS r(id uuid, name text)';
const NAME = `il_write_${createHash('sha256').update(INSERT).digest('hex').slice(0, 32)}`;
const PREPARE = `DO $prepare$ BEGIN EXECUTE 'PREPARE ${NAME} AS ${INSERT}'; EXCEPTION WHEN duplicate_prepared_statement THEN NULL; END $prepare$`;
const GENERIC = 'SET LOCAL plan_cache_mode = force_generic_plan';
const CUSTOM = 'SET LOCAL plan_cache_mode = force_custom_plan';
const DELETE = 'DELETE FROM template_parents WHERE template_id = ANY($1::uuid[])';

describe('held writes of a batch (sent with its next read or its COMMIT)', () => {
  it('given planOnce writes, when the batch is taken, then they run as EXECUTEs under generic plans, prepared once, and the batch plans as it began', () => {
    const { client } = connection();
    const batch = new HeldWrites(client, ['BEGIN'], new PreparedTexts('il_write_'));
    void batch.write(INSERT, ['[{"id":"a"}]'], PLAN_ONCE);
    void batch.write(INSERT, ['[{"name":"o\'brien"}]'], PLAN_ONCE);
    void batch.write(DELETE, ['{b}']);
    const taken = batch.take();
    expect(taken.statements).toEqual([
      'BEGIN',
      GENERIC,
      PREPARE,
      `EXECUTE ${NAME}('[{"id":"a"}]')`,
      `EXECUTE ${NAME}('[{"name":"o''brien"}]')`,
      CUSTOM,
      "DELETE FROM template_parents WHERE template_id = ANY('{b}'::uuid[])",
    ]);
    expect(taken.writes).toBe(3);
  });

  it('given a message that prepared a text ran, when the next batch on that connection writes it, then it is executed without preparing again; a new connection prepares it', () => {
    const prepared = new PreparedTexts('il_write_');
    const first = connection().client;
    const batch = new HeldWrites(first, [], prepared);
    void batch.write(INSERT, ['[]'], PLAN_ONCE);
    batch.take().settle();
    const next = new HeldWrites(first, [], prepared);
    void next.write(INSERT, ['[]'], PLAN_ONCE);
    expect(next.take().statements).toEqual([GENERIC, `EXECUTE ${NAME}('[]')`, CUSTOM]);
    const elsewhere = new HeldWrites(connection().client, [], prepared);
    void elsewhere.write(INSERT, ['[]'], PLAN_ONCE);
    expect(elsewhere.take().statements).toContain(PREPARE);
  });

  it('given a message that failed on a missing statement, when the next batch there writes the text, then it is prepared again (a reset connection lost it); any other failure keeps it known', () => {
    const prepared = new PreparedTexts('il_write_');
    const { client } = connection();
    const batch = new HeldWrites(client, [], prepared);
    void batch.write(INSERT, ['[]'], PLAN_ONCE);
    batch.take().settle();
    const refused = new HeldWrites(client, [], prepared);
    void refused.write(INSERT, ['[]'], PLAN_ONCE);
    refused.take().failed(Object.assign(new Error('the claim failed'), { code: 'IL001' }));
    const kept = new HeldWrites(client, [], prepared);
    void kept.write(INSERT, ['[]'], PLAN_ONCE);
    const sentAgain = kept.take();
    expect(sentAgain.statements).toEqual([GENERIC, `EXECUTE ${NAME}('[]')`, CUSTOM]);
    sentAgain.failed(missingStatement());
    const next = new HeldWrites(client, [], prepared);
    void next.write(INSERT, ['[]'], PLAN_ONCE);
    expect(next.take().statements).toContain(PREPARE);
  });

  it('given a read after held writes, when it is sent, then the writes go first with custom plans restored, and a send failing on a missing statement forgets what was prepared', async () => {
    const prepared = new PreparedTexts('il_write_');
    const { client, sent, state } = connection();
    const batch = new HeldWrites(client, [], prepared);
    void batch.write(INSERT, ['[]'], PLAN_ONCE);
    await batch.query('SELECT 1');
    expect(sent).toEqual([[GENERIC, PREPARE, `EXECUTE ${NAME}('[]')`, CUSTOM].join(';\n'), 'SELECT 1']);
    // That send ran: the text is prepared on this connection.
    void batch.write(INSERT, ['[]'], PLAN_ONCE);
    state.failing = missingStatement();
    await expect(batch.query('SELECT 1')).rejects.toThrow('does not exist');
    state.failing = undefined;
    void batch.write(INSERT, ['[]'], PLAN_ONCE);
    expect(batch.take().statements).toContain(PREPARE);
  });

  it('given no prepared texts (PGlite) or a write not marked planOnce, when it is held, then its values are written into its text as before', () => {
    const batch = new HeldWrites(connection().client);
    void batch.write(INSERT, ['[]'], PLAN_ONCE);
    expect(batch.take().statements).toEqual([
      "INSERT INTO templates (id, name) SELECT id, name FROM json_to_recordset('[]'::json) AS r(id uuid, name text)",
    ]);
  });
});
