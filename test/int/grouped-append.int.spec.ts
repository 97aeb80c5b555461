import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AppendConditionError,
  StreamRevisionConflictError,
  type AppendCondition,
  type AppendResult,
  type EventStore,
  type NewEvent,
  type StreamWrite,
} from '../../src/events/store/port.js';
import { createPostgresEventStore } from '../../src/events/store/postgres.js';
import type { SqlPool } from '../../src/storage/pool.js';
import { databaseTargets, type TestDatabase } from '../support/databases.js';
import { readAllCommitted } from '../support/spine.js';

/*
 * Group commit (src/events/store/postgres.ts, migration 028): writes that arrive while an append is
 * on its way go together in the next statement, each checked on its own. Writes started in one turn
 * are grouped deterministically: the first goes alone, the rest wait for it and go as one group.
 */

const event = (type = 'Noted'): NewEvent => ({ eventId: randomUUID(), type, data: { n: 1 }, metadata: {} });
const write = (streamId: string, expectedRevision: StreamWrite['expectedRevision'], events: NewEvent[] = [event()]): StreamWrite => ({
  streamId,
  expectedRevision,
  events,
});

/** The pool, counting the append statements it runs. */
function counting(pool: SqlPool): { pool: SqlPool; grouped: () => number; single: () => number } {
  let grouped = 0;
  let single = 0;
  const counted: SqlPool = {
    dialect: pool.dialect,
    query: (text, params) => {
      if (text.includes('infraledger_append_groups(')) grouped++;
      else if (text.includes('infraledger_append(')) single++;
      return pool.query(text, params);
    },
    queryEach: (text, params, onRow) => pool.queryEach(text, params, onRow),
    connect: () => pool.connect(),
    listen: (channel, onPayload) => pool.listen(channel, onPayload),
    end: () => pool.end(),
  };
  return { pool: counted, grouped: () => grouped, single: () => single };
}

const settled = (promises: Promise<AppendResult>[]) => Promise.allSettled(promises);

/** A condition on a value of the statement's own: whether the parameter reads 'yes' (what a session check is, to the store). */
const condition = (answer: 'yes' | 'no'): AppendCondition => ({ sql: (first) => `$${first}::text = 'yes'`, parameters: [answer] });

for (const target of databaseTargets()) {
  describe(`grouped appends (${target.name})`, () => {
    let db: TestDatabase;
    let store: EventStore;
    let statements: ReturnType<typeof counting>;

    beforeEach(async () => {
      db = await target.create();
      statements = counting(db.pool);
      store = createPostgresEventStore({ pool: statements.pool });
    });
    afterEach(async () => {
      await store.close();
      await db.close();
    });

    it('given writes started together, when they append, then the first goes alone and the rest in one statement, each with its own result', async () => {
      const streams = Array.from({ length: 5 }, () => `grouped-${randomUUID()}`);
      const results = await Promise.all(streams.map((s) => store.appendMany([write(s, 'no_stream', [event(), event()])])));
      expect(statements.single()).toBe(1);
      expect(statements.grouped()).toBe(1);
      // Positions follow the order the writes were made in; each stream got revisions 0 and 1.
      const positions = results.map((r) => r.position);
      expect([...positions].sort((a, b) => (a < b ? -1 : 1))).toEqual(positions);
      expect(new Set(positions).size).toBe(5);
      results.forEach((r, i) => expect(r.revisions.get(streams[i] ?? '')).toBe(1n));
      for (const [i, streamId] of streams.entries()) {
        const recorded = await store.readStream(streamId);
        expect(recorded.map((e) => e.streamRevision)).toEqual([0n, 1n]);
        expect(recorded.at(-1)?.position).toBe(results[i]?.position);
      }
      const all = await readAllCommitted(store, { limit: 100 });
      expect(all.map((e) => e.position)).toEqual([...all.map((e) => e.position)].sort((a, b) => (a < b ? -1 : 1)));
      expect(all).toHaveLength(10);
    });

    it('given two writes of one group expecting the same new stream, when they append, then the first is written and only the second conflicts', async () => {
      const lead = `lead-${randomUUID()}`;
      const contested = `unique-${randomUUID()}`;
      const others = [`a-${randomUUID()}`, `b-${randomUUID()}`];
      const [alone, first, second, third] = await settled([
        store.appendMany([write(lead, 'no_stream')]),
        store.appendMany([write(others[0] ?? '', 'no_stream'), write(contested, 'no_stream')]),
        store.appendMany([write(contested, 'no_stream'), write(`c-${randomUUID()}`, 'no_stream')]),
        store.appendMany([write(others[1] ?? '', 'no_stream')]),
      ]);
      expect(statements.grouped()).toBe(1);
      expect(alone?.status).toBe('fulfilled');
      expect(first?.status).toBe('fulfilled');
      expect(third?.status).toBe('fulfilled');
      expect(second?.status).toBe('rejected');
      const error = second?.status === 'rejected' ? (second.reason as StreamRevisionConflictError) : undefined;
      expect(error).toBeInstanceOf(StreamRevisionConflictError);
      expect(error?.streamId).toBe(contested);
      // The refused write left nothing: its other stream does not exist.
      const contestedEvents = await store.readStream(contested);
      expect(contestedEvents).toHaveLength(1);
      expect(await readAllCommitted(store, { limit: 100 })).toHaveLength(4);
    });

    it('given a group asserting a revision its predecessor in the group moved, when they append, then the later write conflicts with the head it saw', async () => {
      const stream = `moving-${randomUUID()}`;
      await store.appendMany([write(stream, 'no_stream')]);
      const [, moved, stale] = await settled([
        store.appendMany([write(`lead-${randomUUID()}`, 'no_stream')]),
        store.appendMany([write(stream, 0n)]),
        store.appendMany([write(`other-${randomUUID()}`, 'no_stream'), { streamId: stream, expectedRevision: 0n, events: [] }]),
      ]);
      expect(moved?.status).toBe('fulfilled');
      expect(stale?.status).toBe('rejected');
      const error = stale?.status === 'rejected' ? (stale.reason as StreamRevisionConflictError) : undefined;
      expect(error).toBeInstanceOf(StreamRevisionConflictError);
      expect(error?.actual).toBe(1n);
    });

    it('given a group holding an exact retry of a committed write, when the statement fails on the used ids, then each write is appended alone: the retry answers the original result, the others are written', async () => {
      const committed = write(`retried-${randomUUID()}`, 'no_stream');
      const original = await store.appendMany([committed]);
      const fresh = [`x-${randomUUID()}`, `y-${randomUUID()}`];
      const results = await Promise.all([
        store.appendMany([write(`lead-${randomUUID()}`, 'no_stream')]),
        store.appendMany([write(fresh[0] ?? '', 'no_stream')]),
        store.appendMany([{ ...committed, expectedRevision: 'any' }]),
        store.appendMany([write(fresh[1] ?? '', 'no_stream')]),
      ]);
      expect(statements.grouped()).toBe(1);
      expect(results[2]).toEqual(original);
      for (const streamId of fresh) expect(await store.readStream(streamId)).toHaveLength(1);
      expect(await store.readStream(committed.streamId)).toHaveLength(1);
    });

    it('given a group member reusing an event id of another write, when the group falls back, then only that member is refused', async () => {
      const taken = event();
      await store.appendMany([write(`owner-${randomUUID()}`, 'no_stream', [taken])]);
      const [, ok, reused] = await settled([
        store.appendMany([write(`lead-${randomUUID()}`, 'no_stream')]),
        store.appendMany([write(`ok-${randomUUID()}`, 'no_stream')]),
        store.appendMany([write(`thief-${randomUUID()}`, 'no_stream', [taken])]),
      ]);
      expect(ok?.status).toBe('fulfilled');
      expect(reused?.status).toBe('rejected');
      expect(reused?.status === 'rejected' ? reused.reason : undefined).toBeInstanceOf(StreamRevisionConflictError);
    });

    it('given a write whose condition does not hold, when it appends alone, then it fails with AppendConditionError and writes nothing', async () => {
      const refused = `refused-${randomUUID()}`;
      await expect(store.appendMany([write(refused, 'no_stream')], condition('no'))).rejects.toBeInstanceOf(AppendConditionError);
      expect(await store.readStream(refused)).toEqual([]);
      const held = `held-${randomUUID()}`;
      await store.appendMany([write(held, 'no_stream')], condition('yes'));
      expect(await store.readStream(held)).toHaveLength(1);
    });

    it('given a group whose writes carry conditions, when one does not hold, then only that write is refused and the others are written', async () => {
      const streams = Array.from({ length: 4 }, () => `conditioned-${randomUUID()}`);
      const [lead, held, failed, plain] = await settled([
        store.appendMany([write(streams[0] ?? '', 'no_stream')]),
        store.appendMany([write(streams[1] ?? '', 'no_stream')], condition('yes')),
        store.appendMany([write(streams[2] ?? '', 'no_stream')], condition('no')),
        store.appendMany([write(streams[3] ?? '', 'no_stream')]),
      ]);
      expect([lead, held, plain].map((result) => result?.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
      expect(failed?.status === 'rejected' ? failed.reason : undefined).toBeInstanceOf(AppendConditionError);
      expect(await Promise.all(streams.map(async (streamId) => (await store.readStream(streamId)).length))).toEqual([1, 1, 0, 1]);
    });

    it('given a group whose writes carry the same condition, when it holds, then they go in one statement that checks it once', async () => {
      const seen: string[] = [];
      const observed: SqlPool = { ...statements.pool, query: (text, params) => (seen.push(text), statements.pool.query(text, params)) };
      const checked = createPostgresEventStore({ pool: observed });
      const same = condition('yes');
      await Promise.all(Array.from({ length: 4 }, () => checked.appendMany([write(`same-${randomUUID()}`, 'no_stream')], same)));
      const group = seen.find((text) => text.includes('infraledger_append_groups('));
      expect(group?.match(/= 'yes'/g)).toHaveLength(1);
      await checked.close();
    });
  });
}
