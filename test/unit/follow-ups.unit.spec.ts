import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FollowUps } from '../../src/projections/follow-ups.js';
import type { SqlClient } from '../../src/storage/pool.js';

/** A connection as the hub holds one: only its identity matters to FollowUps. */
const connection = (): SqlClient => ({
  query: () => Promise.reject(new Error('FollowUps sends nothing itself')),
  release: () => undefined,
});

const BY_ID = 'SELECT id, name FROM templates WHERE id = $1 AND deleted_at IS NULL';
const read = (id: string) => ({ text: BY_ID, parameters: [id] });
const allComplete = (): boolean => true;
/** The name BY_ID is prepared under: its digest. */
const NAME = `il_follow_${createHash('sha256').update(BY_ID).digest('hex').slice(0, 32)}`;
/** The statement preparing BY_ID unless the connection has it. */
const PREPARE = `DO $prepare$ BEGIN EXECUTE 'PREPARE ${NAME} AS ${BY_ID}'; EXCEPTION WHEN duplicate_prepared_statement THEN NULL; END $prepare$`;

describe('follow-up reads (the reads a write answer rides with in the batch that projects it)', () => {
  it('given a read registered at a position, when a batch reaches it, then the batch prepares its text, executes it, and hands the rows to take()', () => {
    const followUps = new FollowUps();
    const handle = followUps.add(read("o'brien"), 10n, ['templates']);
    const due = followUps.due(connection(), 10n, allComplete);
    expect(due?.count).toBe(1);
    expect(due?.statements).toEqual([PREPARE, `EXECUTE ${NAME}('o''brien')`]);
    due?.settle([[{ id: "o'brien", name: 'x' }]]);
    expect(handle.take()).toEqual([{ id: "o'brien", name: 'x' }]);
    expect(followUps.size).toBe(0);
  });

  it('given a batch short of the position, or leaving a needed projection incomplete, when it is sent, then it carries nothing and take() gives undefined', () => {
    const followUps = new FollowUps();
    const handle = followUps.add(read('a'), 10n, ['templates', 'audit_log']);
    expect(followUps.due(connection(), 9n, allComplete)).toBeUndefined();
    expect(followUps.due(connection(), 10n, (projection) => projection !== 'audit_log')).toBeUndefined();
    expect(handle.take()).toBeUndefined();
    expect(followUps.size).toBe(0);
  });

  it('given a text prepared on a connection, when later batches use it, then only a new connection prepares it again', () => {
    const followUps = new FollowUps();
    const first = connection();
    followUps.add(read('a'), 1n, ['templates']);
    followUps.due(first, 1n, allComplete)?.settle([[]]);
    followUps.add(read('b'), 2n, ['templates']);
    followUps.add(read('c'), 2n, ['templates']);
    const again = followUps.due(first, 2n, allComplete);
    // The reads answered already are not sent again; both new ones go, in the order registered.
    expect(again?.statements).toEqual([`EXECUTE ${NAME}('b')`, `EXECUTE ${NAME}('c')`]);
    expect(followUps.due(connection(), 2n, allComplete)?.statements[0]).toBe(PREPARE);
  });

  it('given a batch whose message failed, when the next batch comes on that connection, then the read goes again, prepared again where it may exist', () => {
    const followUps = new FollowUps();
    const client = connection();
    const handle = followUps.add(read('a'), 1n, ['templates']);
    expect(followUps.due(client, 1n, allComplete)?.statements[0]).toBe(PREPARE);
    // Not settled: whether the PREPARE ran is unknown, and preparing again is no error.
    const next = followUps.due(client, 2n, allComplete);
    expect(next?.statements).toEqual([PREPARE, `EXECUTE ${NAME}('a')`]);
    next?.settle([[{ id: 'a' }]]);
    expect(handle.take()).toEqual([{ id: 'a' }]);
  });

  it('given a batch failing on a missing statement (a reset connection), when the next batch comes on that connection, then the text is prepared again; after any other failure it is not', () => {
    const followUps = new FollowUps();
    const client = connection();
    followUps.add(read('a'), 1n, ['templates']);
    followUps.due(client, 1n, allComplete)?.settle([[]]);
    followUps.add(read('b'), 2n, ['templates']);
    followUps.due(client, 2n, allComplete)?.failed(Object.assign(new Error('the claim failed'), { code: 'IL001' }));
    const kept = followUps.due(client, 2n, allComplete);
    expect(kept?.statements).toEqual([`EXECUTE ${NAME}('b')`]);
    kept?.failed(Object.assign(new Error(`prepared statement "${NAME}" does not exist`), { code: '26000' }));
    expect(followUps.due(client, 2n, allComplete)?.statements).toEqual([PREPARE, `EXECUTE ${NAME}('b')`]);
  });

  it('given a hub started again on the same pool, when it names its texts, then a name always means one text (a connection may have it from before)', () => {
    const before = new FollowUps();
    const after = new FollowUps();
    const other = 'SELECT id FROM webhooks WHERE id = $1';
    // The restarted hub's first text is another one: it must not get the name the first text got.
    after.add({ text: other, parameters: ['x'] }, 1n, ['webhooks']);
    before.add(read('a'), 1n, ['templates']);
    const client = connection();
    const theirs = after.due(client, 1n, allComplete)?.statements.at(-1);
    const ours = before.due(client, 1n, allComplete)?.statements.at(-1);
    expect(ours).toBe(`EXECUTE ${NAME}('a')`);
    expect(theirs?.split('(')[0]).not.toBe(ours?.split('(')[0]);
  });
});
