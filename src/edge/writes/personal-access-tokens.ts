import { sql } from 'kysely';
import { z } from 'zod';
import { generatePersonalAccessToken } from '../../auth/pat-format.js';
import { executeCommand, loadAggregate } from '../../commands/handler.js';
import { personalAccessTokenAggregate } from '../../commands/personal-access-token.js';
import { AppError, notFound } from '../../errors.js';
import { allows } from '../../model/permissions.js';
import type { Services } from '../../services.js';
import { parseInput } from '../../validation.js';
import { authorize } from '../authorize.js';
import { commandContext } from '../context.js';
import { commandDeps, runCommand, type WriteCall, type Written } from './write.js';

const PROJECTIONS = ['personal_access_tokens'] as const;
const DAY_MS = 24 * 60 * 60 * 1000;

/** docs/contract.md §5: the provider's `maxLifetimeDays` when its configuration does not say. */
export const DEFAULT_PAT_MAX_LIFETIME_DAYS = 90;

// Other fields of the provider's configuration are the provider work's business.
const providerConfiguration = z.object({ maxLifetimeDays: z.number().int().positive().optional() });

/**
 * The longest lifetime a new token may have, from the enabled `personal_access_token` provider.
 * @throws AppError `CONFLICT` when no enabled provider of that type exists
 */
export async function patMaxLifetimeDays(services: Pick<Services, 'db'>): Promise<number> {
  const { rows } = await sql<{ configuration: unknown }>`
    SELECT configuration FROM auth_providers WHERE type = 'personal_access_token' AND enabled AND deleted_at IS NULL`.execute(services.db);
  if (rows.length === 0)
    throw new AppError('FEATURE_DISABLED', 'personal access tokens are disabled: enable the personal_access_token provider');
  // A configuration that cannot be read falls back to the default rather than blocking every token.
  const limits = rows.map((r) => providerConfiguration.safeParse(r.configuration).data?.maxLifetimeDays ?? DEFAULT_PAT_MAX_LIFETIME_DAYS);
  return Math.min(...limits);
}

/**
 * Revokes every live personal access token of one user (or of everyone), each with its own
 * `PersonalAccessTokenRevoked` event and `reason`, and waits until the list shows them revoked. A
 * user's are revoked when their sessions are revoked, their password changes or they are
 * deactivated (the authenticator already refuses them from that event on: this makes it permanent
 * and visible); everyone's when the personal_access_token provider is disabled, deleted, or enabled
 * or created again (so none a disable left behind revives).
 */
export async function revokePersonalAccessTokens(
  services: Services,
  call: WriteCall,
  scope: { readonly userId?: string },
  reason: string,
): Promise<void> {
  const now = services.now();
  const { rows } = await sql<{ id: string }>`
    SELECT id FROM personal_access_tokens
     WHERE revoked_at IS NULL AND expires_at > ${now.toISOString()}::timestamptz
       AND (${scope.userId ?? null}::uuid IS NULL OR user_id = ${scope.userId ?? null}::uuid)`.execute(services.db);
  let last: bigint | undefined;
  for (const { id } of rows) {
    const result = await executeCommand(
      commandDeps(services),
      personalAccessTokenAggregate,
      id,
      { type: 'RevokePersonalAccessToken', data: { reason } },
      commandContext(call.request, services.now()),
    );
    last = result.position ?? last;
  }
  if (last !== undefined) await services.waitFor(PROJECTIONS, last);
}

/** A new token's body; the upper bound on the lifetime comes from the provider. */
export const createPersonalAccessTokenBody = (maxLifetimeDays: number) =>
  z.strictObject({
    name: z.string({ message: 'must be a string' }).trim().min(1, 'must not be empty').max(100, 'at most 100 characters'),
    expiresInDays: z
      .number({ message: 'must be a whole number of days' })
      .int('must be a whole number of days')
      .min(1, 'must be at least 1')
      .max(maxLifetimeDays, `at most ${maxLifetimeDays} (the provider's maxLifetimeDays)`),
  });

/** A token as its creator receives it: the only answer that ever carries the secret. */
export interface CreatedPersonalAccessToken {
  readonly id: string;
  readonly name: string;
  readonly token: string;
  readonly expiresAt: string;
  readonly createdAt: string;
}

/** The writes of personal access tokens: create (the secret shown once) and revoke. */
export function personalAccessTokenWrites(services: Services) {
  const deps = commandDeps(services);
  return {
    projections: PROJECTIONS,
    async create(call: WriteCall, input: unknown): Promise<{ written: Written; created: CreatedPersonalAccessToken }> {
      const principal = authorize(call.request);
      // Otherwise a leaked token could mint its own successors and outlive its mandatory expiry.
      if (principal.method === 'personal_access_token') {
        throw new AppError('FORBIDDEN', 'a personal access token cannot create personal access tokens; sign in to create one');
      }
      const body = parseInput(createPersonalAccessTokenBody(await patMaxLifetimeDays(services)), input ?? {}, 'body');
      const now = services.now();
      const id = services.newId();
      const { token, hash } = generatePersonalAccessToken();
      const expiresAt = new Date(now.getTime() + body.expiresInDays * DAY_MS).toISOString();
      // The token must work as soon as its owner has it: runCommand waits for the projected row the authenticator reads.
      const written = await runCommand(
        services,
        call,
        personalAccessTokenAggregate,
        PROJECTIONS,
        id,
        {
          type: 'CreatePersonalAccessToken',
          data: { id, userId: principal.userId, name: body.name, tokenHash: hash, expiresAt },
        },
        { now },
      );
      return { written, created: { id, name: body.name, token, expiresAt, createdAt: now.toISOString() } };
    },
    /** Revokes the caller's own token, or anyone's for `user:admin`; someone else's answers like a missing one. */
    async revoke(call: WriteCall, id: string): Promise<Written> {
      const principal = authorize(call.request);
      // The owner comes from the event stream, not the read model, so a just-created token is found too.
      const { state } = await loadAggregate(deps, personalAccessTokenAggregate, id);
      const own = state.status !== 'absent' && state.userId === principal.userId;
      if (state.status === 'absent' || (!own && !allows(principal.permissions, 'user:admin')))
        throw notFound('personal access token not found');
      const reason = own ? 'revoked by its owner' : 'revoked by an administrator';
      return runCommand(
        services,
        call,
        personalAccessTokenAggregate,
        PROJECTIONS,
        id,
        { type: 'RevokePersonalAccessToken', data: { reason } },
        { expectedRevision: undefined },
      );
    },
  };
}
