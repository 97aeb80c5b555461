import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrap } from '../../src/auth/bootstrap.js';
import { createSignInLimiter } from '../../src/auth/rate-limit.js';
import { findUserByIdentifier, serviceAccountToken, type SignInDeps } from '../../src/auth/sign-in.js';
import { createTokenService, generateSigningJwk, importSigningKey } from '../../src/auth/tokens.js';
import { createDb } from '../../src/storage/kysely.js';
import { ProjectionRunner } from '../../src/projections/runner.js';
import { allProjections } from '../../src/projections/registry.js';
import { createPositionWaiter } from '../../src/projections/waiter.js';
import { databaseTargets } from '../support/databases.js';
import { openSpine, type Spine } from '../support/spine.js';
import { passwordHasher } from '../../src/auth/passwords.js';
import { TEST_PASSWORD_HASH_COST } from '../support/password-cost.js';

for (const target of databaseTargets()) {
  describe(`bootstrap on ${target.name}`, () => {
    let spine: Spine;
    let runners: ProjectionRunner[];
    let deps: SignInDeps;

    beforeEach(async () => {
      spine = await openSpine(target);
      runners = allProjections.map(
        (p) =>
          new ProjectionRunner(p, {
            pool: spine.pool,
            store: spine.store,
            codec: spine.codec,
            log: spine.log,
            batchSize: 100,
            retryDelayMs: 10,
          }),
      );
      for (const runner of runners) runner.start();
      const tokens = createTokenService(await importSigningKey(await generateSigningJwk()), 'http://infraledger.test');
      deps = {
        ...spine.deps,
        log: spine.log,
        db: createDb(spine.pool),
        tokens,
        limiter: createSignInLimiter({ pool: spine.pool }),
        passwords: passwordHasher(Number(TEST_PASSWORD_HASH_COST)),
        waitFor: createPositionWaiter({ pool: spine.pool, runners, timeoutMs: 10_000 }),
        accessTokenTtlSeconds: 900,
        sessionTtlHours: 1,
      };
    });
    afterEach(async () => {
      await Promise.all(runners.map((r) => r.stop()));
      await spine.close();
    });

    describe('when two replicas start at once on an empty store', () => {
      it('creates exactly one admin and one service-account provider, and admin can sign in', async () => {
        const password = randomBytes(12).toString('base64url');
        await Promise.all([bootstrap(deps, password, new Date()), bootstrap(deps, password, new Date())]);
        const admins = await spine.pool.query<{ n: string }>(
          "SELECT count(*) AS n FROM users WHERE identifier = 'admin' AND 'super' = ANY(roles)",
        );
        const providers = await spine.pool.query<{ n: string }>(
          "SELECT count(*) AS n FROM auth_providers WHERE type = 'svc_service_account' AND enabled",
        );
        expect(Number(admins.rows[0]?.n)).toBe(1);
        expect(Number(providers.rows[0]?.n)).toBe(1);
        const issued = await serviceAccountToken(
          deps,
          { identifier: 'admin', password, address: '127.0.0.1' },
          { actorId: null, correlationId: 'c', causationId: null, now: new Date() },
        );
        expect((await deps.tokens.verify(issued.token)).userId).toBe((await findUserByIdentifier(deps, 'admin'))?.id);
      });
    });

    describe('when it runs again on a store that has an admin', () => {
      it('changes nothing', async () => {
        await bootstrap(deps, 'first-password-123', new Date());
        const before = await spine.store.headPosition();
        await bootstrap(deps, 'second-password-456', new Date());
        expect(await spine.store.headPosition()).toBe(before);
      });
    });
  });
}
