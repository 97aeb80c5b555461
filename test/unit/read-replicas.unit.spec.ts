import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { createReadReplicas, type ReadReplicas } from '../../src/read/replicas.js';
import type { SqlPool } from '../../src/storage/pool.js';

/**
 * How a read waits for a standby (src/read/replicas.ts), with the standby's checkpoint reads stubbed:
 * its pool is never connected, its `query` answers from `checkpoints` and counts the reads. The
 * waiting against a real streaming standby is in test/int/read-replicas.int.spec.ts.
 */
describe('read replicas: waiting for a standby (checkpoint reads stubbed)', () => {
  let replicas: ReadReplicas | undefined;
  afterEach(async () => {
    await replicas?.end();
  });

  const open = (timeoutMs: number) => {
    replicas = createReadReplicas({
      urls: ['postgres://nobody@127.0.0.1:1/standby'],
      log: createLogger({ level: 'silent' }),
      timeoutMs,
      pollMs: 5,
      head: () => Promise.resolve(undefined),
    });
    const checkpoints = new Map<string, bigint>([['templates', 10n]]);
    let reads = 0;
    const replica = replicas.pick();
    (replica.pool as { query: SqlPool['query'] }).query = (() => {
      reads += 1;
      const rows = [...checkpoints].map(([name, position]) => ({ name, position: String(position) }));
      return Promise.resolve({ rows, rowCount: rows.length, command: 'SELECT' });
    }) as SqlPool['query'];
    return { replicas, replica, checkpoints, reads: () => reads };
  };

  it('waits for a position up to the bound; once past it, looks once until the standby shows what it was owed', async () => {
    const { replicas, replica, checkpoints, reads } = open(300);
    expect(await replicas.reached(replica, ['templates'], 10n)).toBe(true);
    // Behind past the bound: many looks, then the primary.
    const before = reads();
    expect(await replicas.reached(replica, ['templates'], 11n)).toBe(false);
    expect(reads() - before).toBeGreaterThan(2);
    // Still behind what it was owed: one look each, however many reads follow (a subscription's changes).
    for (const position of [11n, 12n, 13n]) {
      const looked = reads();
      expect(await replicas.reached(replica, ['templates'], position)).toBe(false);
      expect(reads() - looked).toBe(1);
    }
    // Caught up with what stalled it: waited for as usual again, and a position it reaches within the bound is served.
    checkpoints.set('templates', 11n);
    setTimeout(() => checkpoints.set('templates', 14n), 20);
    expect(await replicas.reached(replica, ['templates'], 14n)).toBe(true);
  });

  it("treats this process's own writes alike", async () => {
    const { replicas, replica, checkpoints, reads } = open(300);
    replicas.noteWrite(['templates'], 20n);
    expect(await replicas.caughtUp(replica)).toBe(false);
    const looked = reads();
    expect(await replicas.caughtUp(replica)).toBe(false);
    expect(reads() - looked).toBe(1);
    checkpoints.set('templates', 20n);
    expect(await replicas.caughtUp(replica)).toBe(true);
  });
});
