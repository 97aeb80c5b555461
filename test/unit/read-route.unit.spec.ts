import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/log.js';
import { createReadReplicas, type ReadReplicas } from '../../src/read/replicas.js';
import { isConnectionFailure } from '../../src/storage/errors.js';
import type { SqlClient, SqlPool, SqlResult } from '../../src/storage/pool.js';
import { readRoute, routedPool, type StandbyHealth } from '../../src/storage/read-route.js';

/**
 * Where a read's statement runs when its standby fails it (src/storage/read-route.ts), with both
 * servers stubbed: failures a real standby gives only by chance (a statement cancelled for a
 * conflict with the replay, a connection lost mid-transaction) are simulated by SQLSTATE. A
 * standby really stopping is in test/int/read-replicas.int.spec.ts.
 */

const answer = (server: string): SqlResult<Record<string, unknown>> => ({ rows: [{ server }], rowCount: 1, command: 'SELECT' });
const failure = (code: string): Error => Object.assign(new Error(`simulated ${code}`), { code });

/** A stubbed server: every statement answers its name, unless `fail` gives an error for it. */
function stubPool(name: string, fail: (text: string) => Error | undefined = () => undefined) {
  const sent: string[] = [];
  const run = (text: string) => {
    sent.push(text);
    const error = fail(text);
    return error ? Promise.reject(error) : Promise.resolve(answer(name));
  };
  const pool: SqlPool = {
    dialect: 'postgres',
    query: run as SqlPool['query'],
    async queryEach(text, _params, onRow) {
      onRow({ server: name } as never);
      await Promise.resolve();
      const error = fail(text);
      if (error) throw error;
      return 1;
    },
    connect: () => Promise.resolve({ query: run as SqlClient['query'], release: () => undefined }),
    listen: () => Promise.resolve(() => Promise.resolve()),
    end: () => Promise.resolve(),
  };
  return { pool, sent };
}

/** Health that records what it was told, the standby always usable. */
function recordingHealth() {
  const told: string[] = [];
  const health: StandbyHealth = {
    usable: () => true,
    failed(_standby, error) {
      if (!isConnectionFailure(error)) return false;
      told.push(`unreachable ${String((error as { code?: string }).code)}`);
      return true;
    },
    answered: () => told.push('answered'),
  };
  return { health, told };
}

describe('a read route whose standby fails a statement (servers stubbed)', () => {
  it('runs a statement the standby cancelled for a conflict with its replay (40001, simulated) on the primary, without passing the standby over', async () => {
    const primary = stubPool('primary');
    const standby = stubPool('standby', (text) => (text.includes('conflicted') ? failure('40001') : undefined));
    const { health, told } = recordingHealth();
    const routed = routedPool(primary.pool, health);
    const rows = await readRoute.run(standby.pool, () => routed.query('SELECT conflicted'));
    expect(rows.rows).toEqual([{ server: 'primary' }]);
    expect(told).toEqual([]);
    // The query builder's path (a connection per statement) does the same.
    const client = await readRoute.run(standby.pool, () => routed.connect());
    expect((await client.query('SELECT conflicted')).rows).toEqual([{ server: 'primary' }]);
    expect((await client.query('SELECT fine')).rows).toEqual([{ server: 'standby' }]);
  });

  it('moves nothing out of a transaction begun on the standby, nor a statement that already handed rows on', async () => {
    const primary = stubPool('primary');
    const standby = stubPool('standby', (text) => (text.includes('lost') ? failure('08006') : undefined));
    const { health } = recordingHealth();
    const routed = routedPool(primary.pool, health);
    const client = await readRoute.run(standby.pool, () => routed.connect());
    await client.query('BEGIN');
    await expect(client.query('SELECT lost')).rejects.toMatchObject({ code: '08006' });
    await client.query('ROLLBACK');
    // Out of the transaction, the same failure moves to the primary.
    expect((await client.query('SELECT lost')).rows).toEqual([{ server: 'primary' }]);
    const handed: unknown[] = [];
    await expect(readRoute.run(standby.pool, () => routed.queryEach('SELECT lost', [], (row) => handed.push(row)))).rejects.toMatchObject({
      code: '08006',
    });
    expect(handed).toEqual([{ server: 'standby' }]);
    expect(primary.sent).toEqual(['SELECT lost']);
  });

  it('leaves a statement that failed for its own reason where it failed', async () => {
    const primary = stubPool('primary');
    const standby = stubPool('standby', () => failure('42P01'));
    const { health, told } = recordingHealth();
    const routed = routedPool(primary.pool, health);
    await expect(readRoute.run(standby.pool, () => routed.query('SELECT * FROM nowhere'))).rejects.toMatchObject({ code: '42P01' });
    expect(primary.sent).toEqual([]);
    expect(told).toEqual([]);
  });
});

describe('a standby that cannot be reached (clock simulated)', () => {
  let replicas: ReadReplicas | undefined;
  afterEach(async () => {
    vi.useRealTimers();
    await replicas?.end();
  });

  it('is passed over (on a connection failure, not another error) for a second, then twice as long after each failed try, up to 30 s, and taken back once it answers; said once each way', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        lines.push(
          ...chunk
            .toString()
            .split('\n')
            .filter((line) => line !== ''),
        );
        done();
      },
    });
    const log = createLogger({ level: 'info', format: 'json', destination });
    replicas = createReadReplicas({
      urls: ['postgres://nobody@127.0.0.1:1/a'],
      log,
      timeoutMs: 100,
      head: () => Promise.resolve(undefined),
    });
    const { pool } = replicas.pick();
    const refused = failure('ECONNREFUSED');
    const waits: number[] = [];
    expect(replicas.failed(pool, failure('42P01'))).toBe(false);
    expect(replicas.usable(pool)).toBe(true);
    expect(replicas.failed(pool, refused)).toBe(true);
    for (let i = 0; i < 7; i++) {
      let waited = 0;
      while (!replicas.usable(pool)) {
        vi.advanceTimersByTime(100);
        waited += 100;
      }
      waits.push(waited);
      // A statement under way when it was passed over changes nothing; the try after the wait does.
      if (i === 0) replicas.failed(pool, refused);
      replicas.failed(pool, refused);
    }
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    expect(replicas.pick().pool).toBe(pool);
    replicas.answered(pool);
    expect(replicas.usable(pool)).toBe(true);
    const said = lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(said.filter((msg) => msg.startsWith('standby unreachable'))).toHaveLength(1);
    expect(said.filter((msg) => msg.startsWith('standby answers again'))).toHaveLength(1);
  });
});
