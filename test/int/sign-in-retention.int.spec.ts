import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneSignIns } from '../../src/auth/retention.js';
import { loadReferrers, REFERENCE_COMPACTION_THRESHOLD, referenceStreamId } from '../../src/commands/references.js';
import { StreamRevisionConflictError } from '../../src/events/store/port.js';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

const DAY = 86_400_000;

for (const target of databaseTargets()) {
  describe(`bounded growth of sign-in data on ${target.name}`, () => {
    let h: HttpHarness;
    const count = async (sql: string, parameters: unknown[] = []): Promise<number> =>
      Number((await h.database.pool.query<{ n: string }>(sql, parameters)).rows[0]?.n ?? 0);

    beforeAll(async () => {
      h = await openHttpApp(target);
      // Sign-ins on the harness's day (2024-01-01): the admin's, two of a bot, and a failure.
      await h.serviceAccount('retention-bot', ['default']);
      const again = await h.app.inject({
        method: 'POST',
        url: '/api/auth/service_account/token',
        payload: { identifier: 'retention-bot', password: 'retention-bot-password-long' },
      });
      expect(again.statusCode).toBe(200);
      const failed = await h.app.inject({
        method: 'POST',
        url: '/api/auth/service_account/token',
        payload: { identifier: 'retention-bot', password: 'not-it-at-all' },
      });
      expect(failed.statusCode).toBe(401);
      await h.inject({ method: 'POST', url: '/api/templates', payload: { name: 'Kept', template: 'kept' } });
      // Every sign-in fact is in the read tables before any pruning.
      await h.services.waitFor(['sessions', 'audit_log'], (await h.services.store.lastPosition()) ?? 0n);
    });

    afterAll(async () => {
      await h.close();
    });

    it('keeps everything within the retention', async () => {
      const sessions = await count('SELECT count(*) AS n FROM sessions');
      expect(sessions).toBe(3);
      const outcome = await pruneSignIns(
        h.services,
        { readTableDays: 90, signInStreamDays: 365 },
        new Date(h.clock.peek().getTime() + 30 * DAY),
      );
      expect(outcome).toEqual({ sessions: 0, auditEntries: 0, signInStreams: 0 });
      expect(await count('SELECT count(*) AS n FROM sessions')).toBe(sessions);
    });

    it('prunes expired sessions and sign-in audit entries from the read tables after the retention; the events stay', async () => {
      const signInEntries = await count("SELECT count(*) AS n FROM audit_log WHERE entity_type IN ('sign_in', 'session')");
      const events = await count('SELECT count(*) AS n FROM events');
      const outcome = await pruneSignIns(
        h.services,
        { readTableDays: 90, signInStreamDays: 365 },
        new Date(h.clock.peek().getTime() + 100 * DAY),
      );
      expect(outcome).toEqual({ sessions: 3, auditEntries: signInEntries, signInStreams: 0 });
      expect(await count('SELECT count(*) AS n FROM sessions')).toBe(0);
      expect(await count("SELECT count(*) AS n FROM audit_log WHERE entity_type IN ('sign_in', 'session', 'sso_login')")).toBe(0);
      // The catalog's audit entries stay, and so does every event (the audit trail).
      expect(await count("SELECT count(*) AS n FROM audit_log WHERE entity_type = 'template'")).toBe(1);
      expect(await count('SELECT count(*) AS n FROM events')).toBe(events);
    });

    it('truncates signin-<day> streams past their own retention, each once; session streams stay', async () => {
      const day = h.clock.peek().toISOString().slice(0, 10);
      expect((await h.services.store.readStream(`signin-${day}`)).length).toBe(4);
      const sessionEvents = await count("SELECT count(*) AS n FROM events WHERE stream_id LIKE 'session-%'");
      const later = new Date(h.clock.peek().getTime() + 400 * DAY);
      const outcome = await pruneSignIns(h.services, { readTableDays: 90, signInStreamDays: 365 }, later);
      expect(outcome?.signInStreams).toBeGreaterThan(0);
      expect(await h.services.store.readStream(`signin-${day}`)).toEqual([]);
      expect(await count("SELECT count(*) AS n FROM events WHERE stream_id LIKE 'session-%'")).toBe(sessionEvents);
      // Where the last run stopped is kept: the next run visits no stream twice.
      expect(await pruneSignIns(h.services, { readTableDays: 90, signInStreamDays: 365 }, later)).toEqual({
        sessions: 0,
        auditEntries: 0,
        signInStreams: 0,
      });
    });

    it('keeps everything when the retentions are 0', async () => {
      expect(
        await pruneSignIns(h.services, { readTableDays: 0, signInStreamDays: 0 }, new Date(h.clock.peek().getTime() + 5000 * DAY)),
      ).toEqual({
        sessions: 0,
        auditEntries: 0,
        signInStreams: 0,
      });
    });
  });

  describe(`reference streams compacted on read on ${target.name}`, () => {
    let h: HttpHarness;
    beforeAll(async () => {
      h = await openHttpApp(target);
    });
    afterAll(async () => {
      await h.close();
    });

    it('given a reference stream of referrers that came and went, a read compacts it to its live referrers and the stream stays short', async () => {
      const { store, codec } = h.services;
      const target = randomUUID();
      const streamId = referenceStreamId('template', target);
      const encode = (type: 'ReferenceAdded' | 'ReferenceRemoved', referrerId: string) =>
        codec.encode(
          { type, data: { referrerKind: 'resource', referrerId, field: 'templateId' } },
          { actorId: null, correlationId: 'test', causationId: null, occurredAt: new Date().toISOString() },
          randomUUID(),
        );
      const live = [randomUUID(), randomUUID()];
      for (const id of live) await store.append(streamId, [encode('ReferenceAdded', id)], { expectedRevision: 'any' });
      // Churn: referrers that came and went, past the threshold.
      for (let i = 0; i < REFERENCE_COMPACTION_THRESHOLD; i++) {
        const id = randomUUID();
        await store.append(streamId, [encode('ReferenceAdded', id), encode('ReferenceRemoved', id)], { expectedRevision: 'any' });
      }
      const before = await store.readStream(streamId);
      expect(before.length).toBe(2 + 2 * REFERENCE_COMPACTION_THRESHOLD);

      const first = await loadReferrers(store, codec, 'template', target);
      expect(first.referrers.map((r) => r.id).sort()).toEqual([...live].sort());
      const after = await store.readStream(streamId);
      expect(after.map((e) => e.type)).toEqual(['ReferencesCompacted']);
      // Revisions go on from where the stream was: a guard on the old revision now conflicts.
      expect(first.revision).toBe(BigInt(before.length));
      await expect(
        store.appendMany([
          { streamId, expectedRevision: BigInt(before.length - 1), events: [] },
          { streamId: `other-${target}`, expectedRevision: 'any', events: [encode('ReferenceAdded', target)] },
        ]),
      ).rejects.toBeInstanceOf(StreamRevisionConflictError);

      // Reading again folds from the snapshot, and later changes apply on top of it.
      await store.append(streamId, [encode('ReferenceRemoved', live[0] ?? '')], { expectedRevision: 'any' });
      const again = await loadReferrers(store, codec, 'template', target);
      expect(again.referrers.map((r) => r.id)).toEqual([live[1]]);
      expect((await store.readStream(streamId)).length).toBe(2);
    });
  });
}
