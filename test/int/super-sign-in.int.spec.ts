import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { leavesSuperSignIn } from '../../src/auth/super-sign-in.js';
import { createDb, type Db } from '../../src/storage/kysely.js';
import type { AuthProviderType } from '../../src/events/auth-provider.js';
import { databaseTargets, type TestDatabase } from '../support/databases.js';

const AT = '2026-01-01T00:00:00.000Z';

interface ProviderRow {
  readonly type: AuthProviderType;
  readonly key?: string;
  readonly enabled?: boolean;
  readonly deleted?: boolean;
  readonly configuration?: Record<string, unknown>;
}

interface UserRow {
  readonly kind: 'human' | 'service_account' | 'guest';
  readonly provider: string | null;
  readonly roles: readonly string[];
  readonly deactivated?: boolean;
}

for (const target of databaseTargets()) {
  describe(`whether a super user can still sign in, on ${target.name}`, () => {
    let database: TestDatabase;
    let db: Db;

    // One database for the file (a fresh one costs seconds); each test starts from empty tables.
    beforeAll(async () => {
      database = await target.create();
      db = createDb(database.pool);
    });
    beforeEach(async () => {
      await database.pool.query('DELETE FROM users');
      await database.pool.query('DELETE FROM auth_providers');
    });
    afterAll(async () => {
      // Not db.destroy(): it would end the pool that database.close() ends.
      await database.close();
    });

    async function provider(row: ProviderRow): Promise<string> {
      const id = randomUUID();
      await database.pool.query(
        `INSERT INTO auth_providers (id, key, name, type, enabled, configuration, revision, created_at, updated_at, deleted_at)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, 1, $7, $7, $8)`,
        [
          id,
          row.key ?? row.type,
          `${row.type} ${id}`,
          row.type,
          row.enabled ?? true,
          JSON.stringify(row.configuration ?? {}),
          AT,
          row.deleted ? AT : null,
        ],
      );
      return id;
    }

    async function user(row: UserRow): Promise<void> {
      const id = randomUUID();
      await database.pool.query(
        `INSERT INTO users (id, kind, identifier, provider, roles, deactivated, revision, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5::text[], $6, 1, $7, $7)`,
        [id, row.kind, `user-${id}`, row.provider, `{${row.roles.join(',')}}`, row.deactivated ?? false, AT],
      );
    }

    const superAdmin = (): Promise<void> => user({ kind: 'service_account', provider: 'svc_service_account', roles: ['super'] });

    describe('when the service-account provider is the only one and admin the only super', () => {
      it('says disabling the service-account provider would lock every super user out', async () => {
        const svc = await provider({ type: 'svc_service_account' });
        await superAdmin();
        expect(await leavesSuperSignIn(db, svc)).toBe(false);
      });

      it('says disabling another provider leaves admin a way in', async () => {
        await provider({ type: 'svc_service_account' });
        const github = await provider({ type: 'github' });
        await superAdmin();
        expect(await leavesSuperSignIn(db, github)).toBe(true);
      });
    });

    describe('when a super SSO user signs in through a second enabled provider', () => {
      it('lets the service-account provider go', async () => {
        const svc = await provider({ type: 'svc_service_account' });
        await provider({ type: 'github', key: 'corp-github' });
        await superAdmin();
        await user({ kind: 'human', provider: 'corp-github', roles: ['default', 'super'] });
        expect(await leavesSuperSignIn(db, svc)).toBe(true);
      });

      it('does not count a super user of another provider key', async () => {
        const svc = await provider({ type: 'svc_service_account' });
        await provider({ type: 'github', key: 'corp-github' });
        await user({ kind: 'human', provider: 'google', roles: ['super'] });
        expect(await leavesSuperSignIn(db, svc)).toBe(false);
      });

      it('does not count an SSO user who is not super', async () => {
        const svc = await provider({ type: 'svc_service_account' });
        await provider({ type: 'github' });
        await user({ kind: 'human', provider: 'github', roles: ['infra'] });
        expect(await leavesSuperSignIn(db, svc)).toBe(false);
      });

      it('does not count that provider once it is disabled', async () => {
        const svc = await provider({ type: 'svc_service_account' });
        await provider({ type: 'github', enabled: false });
        await user({ kind: 'human', provider: 'github', roles: ['super'] });
        expect(await leavesSuperSignIn(db, svc)).toBe(false);
      });

      it('does not count that provider once it is deleted', async () => {
        const svc = await provider({ type: 'svc_service_account' });
        await provider({ type: 'github', deleted: true });
        await user({ kind: 'human', provider: 'github', roles: ['super'] });
        expect(await leavesSuperSignIn(db, svc)).toBe(false);
      });

      it('says disabling the provider that user signs in with would lock them out', async () => {
        const github = await provider({ type: 'github' });
        await user({ kind: 'human', provider: 'github', roles: ['super'] });
        expect(await leavesSuperSignIn(db, github)).toBe(false);
      });
    });

    describe('when the only other super user is deactivated', () => {
      it('does not count a deactivated super SSO user', async () => {
        const svc = await provider({ type: 'svc_service_account' });
        await provider({ type: 'github' });
        await user({ kind: 'human', provider: 'github', roles: ['super'], deactivated: true });
        expect(await leavesSuperSignIn(db, svc)).toBe(false);
      });

      it('does not count a deactivated super service account', async () => {
        await provider({ type: 'svc_service_account' });
        const github = await provider({ type: 'github' });
        await user({ kind: 'service_account', provider: 'svc_service_account', roles: ['super'], deactivated: true });
        await user({ kind: 'human', provider: 'github', roles: ['super'] });
        expect(await leavesSuperSignIn(db, github)).toBe(false);
      });
    });

    describe('when a guest provider is enabled', () => {
      it('counts the guest identity when it is mapped to super', async () => {
        const svc = await provider({ type: 'svc_service_account' });
        await provider({ type: 'guest', configuration: { role: 'super' } });
        await superAdmin();
        expect(await leavesSuperSignIn(db, svc)).toBe(true);
      });

      it('does not count a guest mapped to another role', async () => {
        const svc = await provider({ type: 'svc_service_account' });
        await provider({ type: 'guest', configuration: { role: 'infra' } });
        await superAdmin();
        expect(await leavesSuperSignIn(db, svc)).toBe(false);
      });

      it('does not count a guest provider that is deleted', async () => {
        const svc = await provider({ type: 'svc_service_account' });
        await provider({ type: 'guest', configuration: { role: 'super' }, deleted: true });
        expect(await leavesSuperSignIn(db, svc)).toBe(false);
      });

      it('says disabling the super guest provider itself needs another way in', async () => {
        const guest = await provider({ type: 'guest', configuration: { role: 'super' } });
        expect(await leavesSuperSignIn(db, guest)).toBe(false);
        await provider({ type: 'svc_service_account' });
        await superAdmin();
        expect(await leavesSuperSignIn(db, guest)).toBe(true);
      });
    });
  });
}
