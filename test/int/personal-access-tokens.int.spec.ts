import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generatePersonalAccessToken } from '../../src/auth/pat-format.js';
import { verifyPersonalAccessToken } from '../../src/auth/personal-access-tokens.js';
import { executeCommand } from '../../src/commands/handler.js';
import { personalAccessTokenAggregate, type PersonalAccessTokenCommand } from '../../src/commands/personal-access-token.js';
import { createDb, type Db } from '../../src/storage/kysely.js';
import { withTransaction } from '../../src/storage/pool.js';
import { AppError } from '../../src/errors.js';
import { personalAccessTokensProjection } from '../../src/projections/personal-access-tokens.js';
import { applyEvents } from '../../src/projections/runner.js';
import { databaseTargets } from '../support/databases.js';
import { dumpTables, openSpine, type Spine, readAllCommitted } from '../support/spine.js';

const NOW = new Date('2026-01-01T12:00:00.000Z');
const seconds = (n: number): Date => new Date(NOW.getTime() + n * 1000);
const DAY = 24 * 60 * 60;

interface Issued {
  readonly id: string;
  readonly userId: string;
  readonly token: string;
  readonly hash: string;
}

/** The exact refusal `verifyPersonalAccessToken` throws, as code and message. */
async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the token was expected to be refused').toBeInstanceOf(AppError);
  const { code, message } = error as AppError;
  return { code, message };
}

for (const target of databaseTargets()) {
  describe(`personal access tokens on ${target.name}`, () => {
    let spine: Spine;
    let db: Db;

    beforeEach(async () => {
      spine = await openSpine(target);
      db = createDb(spine.pool);
    });
    afterEach(async () => {
      await spine.close();
    });

    const run = (id: string, command: PersonalAccessTokenCommand, now = seconds(-DAY)) =>
      executeCommand(spine.deps, personalAccessTokenAggregate, id, command, {
        actorId: null,
        correlationId: randomUUID(),
        causationId: null,
        now,
      });

    /** Creates a token that was issued a day ago and expires `expiresIn` seconds from NOW. */
    async function issue(expiresIn = 30 * DAY): Promise<Issued> {
      const id = randomUUID();
      const userId = randomUUID();
      const { token, hash } = generatePersonalAccessToken();
      await run(id, {
        type: 'CreatePersonalAccessToken',
        data: { id, userId, name: 'ci deploys', tokenHash: hash, expiresAt: seconds(expiresIn).toISOString() },
      });
      return { id, userId, token, hash };
    }

    /** Replays the whole log into the read model, as the runner (or a replay after a crash) would. */
    async function project(): Promise<void> {
      const events = await readAllCommitted(spine.store, { limit: 10_000 });
      await withTransaction(spine.pool, (tx) => applyEvents(tx, personalAccessTokensProjection, spine.codec, events));
    }

    async function usage(id: string): Promise<{ lastUsedAt: string | null; version: string }> {
      // xmin changes with every new row version: an unchanged xmin proves no UPDATE touched the row.
      const { rows } = await spine.pool.query<{ last_used_at: Date | null; version: string }>(
        'SELECT last_used_at, xmin::text AS version FROM personal_access_tokens WHERE id = $1',
        [id],
      );
      const row = rows[0];
      if (!row) throw new Error(`no row for ${id}`);
      return { lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at).toISOString(), version: row.version };
    }

    describe('when a valid token is presented', () => {
      it('resolves to the token and its owner and records when it was used', async () => {
        const pat = await issue();
        await project();
        expect(await verifyPersonalAccessToken(db, pat.token, NOW)).toEqual({
          tokenId: pat.id,
          userId: pat.userId,
          createdAt: expect.any(Date) as unknown,
        });
        expect((await usage(pat.id)).lastUsedAt).toBe(NOW.toISOString());
      });

      it('does not write again when it is used a second time within a minute', async () => {
        const pat = await issue();
        await project();
        await verifyPersonalAccessToken(db, pat.token, NOW);
        const first = await usage(pat.id);
        await verifyPersonalAccessToken(db, pat.token, seconds(59));
        expect(await usage(pat.id)).toEqual(first);
      });

      it('records the use again once more than a minute has passed', async () => {
        const pat = await issue();
        await project();
        await verifyPersonalAccessToken(db, pat.token, NOW);
        await verifyPersonalAccessToken(db, pat.token, seconds(61));
        expect((await usage(pat.id)).lastUsedAt).toBe(seconds(61).toISOString());
      });
    });

    describe('when a token is refused', () => {
      it('says a revoked token is revoked', async () => {
        const pat = await issue();
        await run(pat.id, { type: 'RevokePersonalAccessToken', data: { reason: 'revoked by its owner' } });
        await project();
        expect(await refusal(verifyPersonalAccessToken(db, pat.token, NOW))).toEqual({
          code: 'UNAUTHENTICATED',
          message: 'personal access token revoked',
        });
        expect((await usage(pat.id)).lastUsedAt).toBeNull();
      });

      it('says a token is expired from the moment its expiry is reached', async () => {
        const pat = await issue(60);
        await project();
        expect(await verifyPersonalAccessToken(db, pat.token, seconds(59))).toEqual({
          tokenId: pat.id,
          userId: pat.userId,
          createdAt: expect.any(Date) as unknown,
        });
        expect(await refusal(verifyPersonalAccessToken(db, pat.token, seconds(60)))).toEqual({
          code: 'UNAUTHENTICATED',
          message: 'personal access token expired',
        });
      });

      it('says a well-formed token that was never issued is unknown', async () => {
        await issue();
        await project();
        const { token } = generatePersonalAccessToken();
        expect(await refusal(verifyPersonalAccessToken(db, token, NOW))).toEqual({
          code: 'UNAUTHENTICATED',
          message: 'unknown personal access token',
        });
      });

      it('says a token of the wrong shape is malformed', async () => {
        expect(await refusal(verifyPersonalAccessToken(db, 'ilpat_short', NOW))).toEqual({
          code: 'UNAUTHENTICATED',
          message: 'malformed personal access token',
        });
      });

      it('says a token with a typo is malformed, without reading the database', async () => {
        const pat = await issue();
        await project();
        const typo = pat.token.slice(0, -1) + (pat.token.endsWith('a') ? 'b' : 'a');
        const queries: string[] = [];
        const watched = createDb(spine.pool, { onQuery: (text) => queries.push(text) });
        expect(await refusal(verifyPersonalAccessToken(watched, typo, NOW))).toEqual({
          code: 'UNAUTHENTICATED',
          message: 'malformed personal access token',
        });
        expect(queries).toEqual([]);
        // The same watcher does see the lookup of the real token.
        await verifyPersonalAccessToken(watched, pat.token, NOW);
        expect(queries).not.toEqual([]);
      });
    });

    describe('the read model', () => {
      it('keeps last_used_at when the events are replayed, twice', async () => {
        const pat = await issue();
        await project();
        await verifyPersonalAccessToken(db, pat.token, NOW);
        await run(pat.id, { type: 'RevokePersonalAccessToken', data: { reason: 'revoked by its owner' } }, seconds(10));
        await project();
        const once = await dumpTables(spine.pool, personalAccessTokensProjection.tables);
        await project();
        expect(await dumpTables(spine.pool, personalAccessTokensProjection.tables)).toEqual(once);
        expect(once.personal_access_tokens).toEqual([
          expect.objectContaining({
            id: pat.id,
            user_id: pat.userId,
            token_hash: pat.hash,
            revoked_at: seconds(10),
            last_used_at: NOW,
            revision: 2,
          }),
        ]);
      });

      it('is written from events whose hash is encrypted in the store', async () => {
        const pat = await issue();
        const [stored] = await spine.store.readStream(personalAccessTokenAggregate.streamId(pat.id));
        expect(stored?.data.tokenHash).toEqual(expect.stringMatching(/^enc:/));
        expect(JSON.stringify(stored?.data)).not.toContain(pat.hash);
      });
    });
  });
}
