import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangeFeed, type Change } from '../../src/read/change-feed.js';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

/** The change feed behind GraphQL subscriptions, against the real event store. */
for (const target of databaseTargets()) {
  describe(`change feed on ${target.name}`, () => {
    let harness: HttpHarness;
    let seq = 0;
    const createTemplate = async (): Promise<string> => {
      seq += 1;
      const response = await harness.inject({
        method: 'POST',
        url: '/api/templates',
        payload: { name: `feed ${seq}`, template: `feed_${seq}` },
      });
      expect(response.statusCode, response.body).toBe(201);
      return response.json<{ id: string }>().id;
    };
    const templates = (change: Change) => change.entityType === 'template';

    beforeAll(async () => {
      harness = await openHttpApp(target);
    }, 60_000);
    afterAll(() => harness.close());

    it('replays in small pages, then goes live, in strictly increasing positions', async () => {
      const feed = new ChangeFeed(harness.services.store, harness.services.log, { maxBuffered: 100, pageSize: 2 });
      const ids = [await createTemplate(), await createTemplate(), await createTemplate()];
      const listener = await feed.listen(-1n, templates);
      const replayed: Change[] = [];
      for (let i = 0; i < 3; i++) replayed.push((await listener.next()).value as Change);
      expect(replayed.map((change) => change.entityId)).toEqual(ids);
      const live = await createTemplate();
      const next = (await listener.next()).value as Change;
      expect(next.entityId).toBe(live);
      expect(next.position > (replayed[2] as Change).position).toBe(true);
      await listener.return();
      expect(feed.size).toBe(0);
      await feed.close();
    });

    it('closes a slow consumer once more than its buffer waits, telling it to resume from its last position', async () => {
      const feed = new ChangeFeed(harness.services.store, harness.services.log, { maxBuffered: 3, pageSize: 500 });
      const listener = await feed.listen(undefined, templates);
      const first = await createTemplate();
      expect(((await listener.next()).value as Change).entityId).toBe(first);
      let handed = -1n;
      const note = (position: bigint): void => {
        handed = position;
      };
      feed.progress.on('position', note);
      // Nobody reads while five more arrive.
      for (let i = 0; i < 5; i++) await createTemplate();
      const last = (await harness.services.store.lastPosition()) ?? 0n;
      // Until the feed has handed all five to the listener (it looks every 20 ms here, or on a wake-up).
      while (handed < last) await once(feed.progress, 'position');
      feed.progress.off('position', note);
      await expect(
        (async () => {
          for (;;) await listener.next();
        })(),
      ).rejects.toMatchObject({ code: 'RATE_LIMITED', message: expect.stringContaining('too slow') as string });
      expect(feed.size).toBe(0);
      await feed.close();
    });

    it('ends every listener on close', async () => {
      const feed = new ChangeFeed(harness.services.store, harness.services.log);
      const listener = await feed.listen(undefined, templates);
      const pending = listener.next();
      await feed.close();
      expect(await pending).toEqual({ value: undefined, done: true });
    });
  });
}
