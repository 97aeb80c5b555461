import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { z } from 'zod';
import { generatePersonalAccessToken } from '../../auth/pat-format.js';
import { allows } from '../../model/permissions.js';
import { executeCommand, loadAggregate } from '../../commands/handler.js';
import { personalAccessTokenAggregate, type PersonalAccessTokenCommand } from '../../commands/personal-access-token.js';
import { AppError, conflict, notFound } from '../../errors.js';
import type { Services } from '../../services.js';
import { authorize } from '../../edge/authorize.js';
import { commandContext } from '../../edge/context.js';
import { awaitMinPosition } from '../../edge/headers.js';
import { parseInput, canonicalUuid } from '../../validation.js';

const PROJECTIONS = ['personal_access_tokens'] as const;
const DAY_MS = 24 * 60 * 60 * 1000;

/** docs/contract.md §5: the provider's `maxLifetimeDays` when its configuration does not say. */
export const DEFAULT_PAT_MAX_LIFETIME_DAYS = 90;

// Other fields of the provider's configuration are the provider work's business.
const providerConfiguration = z.object({ maxLifetimeDays: z.number().int().positive().optional() });

/**
 * The longest lifetime a new token may have, from the enabled `personal_access_token` provider.
 * Until the auth_providers table exists (the provider work lands in parallel) the default applies.
 * @throws AppError `CONFLICT` when the table exists but no enabled provider of that type is in it
 */
export async function patMaxLifetimeDays(services: Pick<Services, 'db'>): Promise<number> {
  const { rows: tables } = await sql<{ present: boolean }>`SELECT to_regclass('auth_providers') IS NOT NULL AS present`.execute(services.db);
  if (!tables[0]?.present) return DEFAULT_PAT_MAX_LIFETIME_DAYS;
  const { rows } = await sql<{ configuration: unknown }>`
    SELECT configuration FROM auth_providers WHERE type = 'personal_access_token' AND enabled AND deleted_at IS NULL`.execute(services.db);
  if (rows.length === 0) throw conflict('personal access tokens are disabled: enable the personal_access_token provider');
  // A configuration that cannot be read falls back to the default rather than blocking every token.
  const limits = rows.map((r) => providerConfiguration.safeParse(r.configuration).data?.maxLifetimeDays ?? DEFAULT_PAT_MAX_LIFETIME_DAYS);
  return Math.min(...limits);
}

/** POST /api/personal_access_tokens body; the upper bound on the lifetime comes from the provider. */
export const createPersonalAccessTokenBody = (maxLifetimeDays: number) =>
  z.strictObject({
    name: z.string({ message: 'must be a string' }).trim().min(1, 'must not be empty').max(100, 'at most 100 characters'),
    expiresInDays: z
      .number({ message: 'must be a whole number of days' })
      .int('must be a whole number of days')
      .min(1, 'must be at least 1')
      .max(maxLifetimeDays, `at most ${maxLifetimeDays} (the provider's maxLifetimeDays)`),
  });

const idParams = z.object({ id: canonicalUuid });

/** One token as its owner sees it in the list: never the token or its hash. */
export interface PersonalAccessTokenView {
  readonly id: string;
  readonly name: string;
  readonly expiresAt: string;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
  readonly createdAt: string;
}

interface ListRow {
  readonly id: string;
  readonly name: string;
  readonly expires_at: Date;
  readonly last_used_at: Date | null;
  readonly revoked_at: Date | null;
  readonly created_at: Date;
}

const iso = (value: Date): string => new Date(value).toISOString();
const isoOrNull = (value: Date | null): string | null => (value === null ? null : iso(value));

/** `/personal_access_tokens` under `/api`: create (the secret is shown once), list own, revoke. */
export function personalAccessTokenRoutes(app: FastifyInstance, services: Services): void {
  const deps = { store: services.store, codec: services.codec, newId: services.newId, log: services.log };

  app.post('/personal_access_tokens', async (request, reply) => {
    const principal = authorize(request);
    // Otherwise a leaked token could mint its own successors and outlive its mandatory expiry.
    if (principal.method === 'personal_access_token') {
      throw new AppError('FORBIDDEN', 'a personal access token cannot create personal access tokens; sign in to create one');
    }
    const maxLifetimeDays = await patMaxLifetimeDays(services);
    const body = parseInput(createPersonalAccessTokenBody(maxLifetimeDays), request.body ?? {}, 'body');
    const now = services.now();
    const id = services.newId();
    const { token, hash } = generatePersonalAccessToken();
    const expiresAt = new Date(now.getTime() + body.expiresInDays * DAY_MS).toISOString();
    const command: PersonalAccessTokenCommand = {
      type: 'CreatePersonalAccessToken',
      data: { id, userId: principal.userId, name: body.name, tokenHash: hash, expiresAt },
    };
    const result = await executeCommand(deps, personalAccessTokenAggregate, id, command, commandContext(request, now));
    // The token must work as soon as its owner has it: the authenticator reads the projected row.
    if (result.position !== undefined) {
      await services.waitFor(PROJECTIONS, result.position);
      void reply.header('X-Position', String(result.position));
    }
    // The only response that ever carries the secret: keep it out of every cache.
    return reply.status(201).header('Cache-Control', 'no-store').send({ id, name: body.name, token, expiresAt, createdAt: now.toISOString() });
  });

  app.get('/personal_access_tokens', async (request, reply) => {
    const principal = authorize(request);
    await awaitMinPosition(request, services, PROJECTIONS);
    const { rows } = await sql<ListRow>`
      SELECT id, name, expires_at, last_used_at, revoked_at, created_at FROM personal_access_tokens
       WHERE user_id = ${principal.userId} ORDER BY created_at DESC, id DESC`.execute(services.db);
    const views = rows.map(
      (r): PersonalAccessTokenView => ({
        id: r.id,
        name: r.name,
        expiresAt: iso(r.expires_at),
        lastUsedAt: isoOrNull(r.last_used_at),
        revokedAt: isoOrNull(r.revoked_at),
        createdAt: iso(r.created_at),
      }),
    );
    return reply.send(views);
  });

  app.delete('/personal_access_tokens/:id', async (request, reply) => {
    const principal = authorize(request);
    const { id } = parseInput(idParams, request.params, 'path');
    // The owner comes from the event stream, not the read model, so a just-created token is found too.
    const { state } = await loadAggregate(deps, personalAccessTokenAggregate, id);
    const own = state.status !== 'absent' && state.userId === principal.userId;
    // Someone else's token answers exactly like a missing one, so ids cannot be probed.
    if (state.status === 'absent' || (!own && !allows(principal.permissions, 'user:admin'))) throw notFound('personal access token not found');
    const reason = own ? 'revoked by its owner' : 'revoked by an administrator';
    const result = await executeCommand(deps, personalAccessTokenAggregate, id, { type: 'RevokePersonalAccessToken', data: { reason } }, commandContext(request, services.now()));
    if (result.position !== undefined) {
      await services.waitFor(PROJECTIONS, result.position);
      void reply.header('X-Position', String(result.position));
    }
    return reply.status(204).send();
  });
}
