import { describe, expect, it } from 'vitest';
import type { DecodedEvent } from '../../src/events/codec.js';
import { rowProjection } from '../../src/projections/row-projection.js';
import type { ReplayTransaction } from '../../src/projections/projection.js';
import type { SqlClient, SqlResult } from '../../src/storage/pool.js';

/*
 * A row projection's replay writes quiet rows in the background while later events fold, and loads a
 * row back when its events continue after it was written. These given/when/then cases drive it
 * against an in-memory table whose statements wait until the test lets them go, so that events
 * arrive while writes are still under way.
 */

interface Row {
  id: string;
  revision: number;
  value: string;
}

const projection = rowProjection<Row>({
  name: 'things',
  table: 'things',
  columns: { id: 'uuid', revision: 'integer', value: 'text' },
  links: [],
  handles: ['ThingSet'],
  rowId: (event) => event.streamId,
  // As a catalog projection: an event after the first needs its row (without it, nothing to change).
  evolve: (row, event) =>
    row === undefined && event.streamRevision > 0n
      ? undefined
      : { id: event.streamId, revision: Number(event.streamRevision) + 1, value: String(event.event.data.value) },
});

let position = 0n;
const set = (id: string, revision: number, value: string) =>
  ({
    event: { type: 'ThingSet', data: { value } },
    metadata: { occurredAt: '2026-01-01T00:00:00.000Z', correlationId: 'c', causationId: null, actorId: null, schemaVersion: 1 },
    eventId: `${id}-${String(revision)}`,
    streamId: id,
    streamRevision: BigInt(revision),
    position: ++position,
  }) as unknown as DecodedEvent;

/** The table as the replay's statements leave it, writes held until `release` lets them run. */
function heldTable() {
  const table = new Map<string, Row>();
  let gate: Promise<void> = Promise.resolve();
  let open = (): void => undefined;
  const tx: SqlClient = {
    async query<R>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>> {
      // Reads answer at once; writes wait, as a transaction still under way is invisible to others.
      if (!text.startsWith('SELECT')) await gate;
      if (text.startsWith('SELECT')) {
        const ids = params?.[0] as string[];
        return { rows: ids.flatMap((id) => table.get(id) ?? []) as R[], rowCount: 0, command: 'SELECT' };
      }
      for (const row of JSON.parse(String(params?.[0])) as Row[]) {
        if (!text.includes('ON CONFLICT') && table.has(row.id)) throw new Error(`row ${row.id} inserted twice`);
        table.set(row.id, { id: row.id, revision: row.revision, value: row.value });
      }
      return { rows: [], rowCount: 0, command: 'INSERT' };
    },
    release: () => undefined,
  };
  const transaction: ReplayTransaction = (work) => work(tx);
  return {
    table,
    transaction,
    /** Writes from now on wait for `release`. */
    hold() {
      gate = new Promise<void>((resolve) => (open = resolve));
    },
    release: () => open(),
  };
}

/** Page 1 of a replay: a and b are quiet after two more events and go to a background write, held. */
async function quietRowsBeingWritten(db: ReturnType<typeof heldTable>) {
  const replay = projection.replay?.(db.transaction, { quietEvents: 2 });
  if (!replay) throw new Error('row projections replay');
  for (const event of [set('a', 0, 'a0'), set('b', 0, 'b0'), set('c', 0, 'c0'), set('c', 1, 'c1')]) replay.add(event);
  db.hold();
  await replay.endPage();
  return replay;
}

describe('a row projection replay', () => {
  it('given rows written out in the background, when their events continue while the write is under way, then they come back and fold in order', async () => {
    const db = heldTable();
    const replay = await quietRowsBeingWritten(db);
    // Page 2, while the write is under way: a's and b's events continue, and a new row begins.
    for (const event of [set('a', 1, 'a1'), set('b', 1, 'b1'), set('a', 2, 'a2'), set('d', 0, 'd0')]) replay.add(event);
    const ending = replay.endPage();
    db.release();
    await ending;
    replay.add(set('a', 3, 'a3'));
    await replay.endPage();
    await replay.finish();
    expect(Object.fromEntries(db.table)).toEqual({
      a: { id: 'a', revision: 4, value: 'a3' },
      b: { id: 'b', revision: 2, value: 'b1' },
      c: { id: 'c', revision: 2, value: 'c1' },
      d: { id: 'd', revision: 1, value: 'd0' },
    });
  });

  it('given a background write under way, when the replay is abandoned (its rebuild failed), then it returns only once that write has ended', async () => {
    const db = heldTable();
    const replay = await quietRowsBeingWritten(db);
    let abandoned = false;
    const abandoning = replay.abandon().then(() => (abandoned = true));
    // Everything here is in memory: once pending callbacks have run, only the held write can keep it waiting.
    await new Promise((resolve) => setImmediate(resolve));
    expect(abandoned).toBe(false);
    db.release();
    await abandoning;
    expect([...db.table.keys()].sort()).toEqual(['a', 'b']);
  });

  it('given rows that go quiet and come back page after page, when writes are still running as pages end, then every row lands once with its last value', async () => {
    const db = heldTable();
    const replay = projection.replay?.(db.transaction, { quietEvents: 3 });
    if (!replay) throw new Error('row projections replay');
    const expected = new Map<string, Row>();
    const revisions = new Map<string, number>();
    for (let page = 0; page < 20; page++) {
      // Each page touches ten of twelve rows, some of them written out pages before.
      for (let i = 0; i < 10; i++) {
        const id = `r${String((page * 7 + i) % 12)}`;
        const revision = revisions.get(id) ?? 0;
        revisions.set(id, revision + 1);
        expected.set(id, { id, revision: revision + 1, value: `${id}@${String(page)}` });
        replay.add(set(id, revision, `${id}@${String(page)}`));
      }
      // Every other page ends with the writes held, so the next page folds while they run; a page
      // end that waits for them (two under way, or a row to load back) lets them go.
      if (page % 2 === 0) db.hold();
      else db.release();
      const ending = replay.endPage().then(() => 'ended');
      // Everything here is in memory: a page end that has not ended once pending callbacks have run waits for the writes.
      if ((await Promise.race([ending, new Promise((resolve) => setImmediate(resolve))])) !== 'ended') {
        db.release();
        await ending;
      }
    }
    db.release();
    await replay.endPage();
    await replay.finish();
    expect(Object.fromEntries(db.table)).toEqual(Object.fromEntries(expected));
  });
});
