import { createHash, randomBytes } from 'node:crypto';
import { executeCommand, loadAggregate, type CommandDeps } from '../commands/handler.js';
import { sessionAggregate } from '../commands/session.js';
import { uniqueStreamId } from '../commands/unique.js';
import { userAggregate, type UserState } from '../commands/user.js';
import type { Db } from '../storage/kysely.js';
import { AppError } from '../errors.js';
import type { CommandContext } from '../events/define.js';
import type { SignInEvent } from '../events/identity.js';
import type { UniqueValueEvent } from '../events/unique.js';
import type { Logger } from '../log.js';
import type { PasswordHasher } from './passwords.js';
import type { AuthMethod } from '../model/principal.js';
import type { SignInLimiter } from './rate-limit.js';
import type { TokenService } from './tokens.js';
import { STREAMS } from '../events/streams.js';

/** What sign-in needs: the command path, the token service, the limiter and the clock. */
export interface SignInDeps extends CommandDeps {
  readonly db: Db;
  readonly tokens: TokenService;
  readonly limiter: SignInLimiter;
  /** Hashes and checks service-account passwords at PASSWORD_HASH_COST. */
  readonly passwords: PasswordHasher;
  readonly log: Logger;
  readonly waitFor: (projections: readonly string[], position: bigint) => Promise<unknown>;
  readonly accessTokenTtlSeconds: number;
  readonly sessionTtlHours: number;
}

/** A token the service issued, with its expiry and session. */
export interface IssuedToken {
  readonly token: string;
  readonly expiresAt: Date;
  readonly sessionId: string;
  /** `<sessionId>.<secret>` for the refresh cookie (browser sessions only). */
  readonly refreshToken?: string;
}

const unauthenticated = (message: string): AppError => new AppError('UNAUTHENTICATED', message);
/** The hex SHA-256 of a text (tokens and refresh tokens are stored only as hashes). */
export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Sign-in attempts go to one stream per day: audit facts that no aggregate needs to decide on. */
export async function recordSignIn(deps: SignInDeps, event: SignInEvent, context: CommandContext): Promise<void> {
  const day = context.now.toISOString().slice(0, 10);
  const metadata = {
    actorId: context.actorId,
    correlationId: context.correlationId,
    causationId: context.causationId,
    occurredAt: context.now.toISOString(),
  };
  await deps.store.append(`signin-${day}`, [deps.codec.encode(event, metadata, deps.newId())], { expectedRevision: 'any' });
}

/**
 * The active user owning a unique user key (`user-identifier:…`, `user-subject:…`), through its reservation stream (the write model, no
 * lag).
 */
export async function findUserByUniqueKey(
  deps: CommandDeps,
  key: string,
): Promise<{ id: string; state: Extract<UserState, { status: 'active' }> } | undefined> {
  const reservations = await deps.store.readStream(uniqueStreamId(key));
  const last = reservations.at(-1);
  if (!last) return undefined;
  const { event } = deps.codec.decode<UniqueValueEvent>(last);
  if (event.type !== 'UniqueValueReserved') return undefined;
  const id = STREAMS.user.parse(event.data.ownerStreamId);
  const { state } = await loadAggregate(deps, userAggregate, id);
  return state.status === 'active' ? { id, state } : undefined;
}

/** The user holding an identifier (case-insensitive). */
export const findUserByIdentifier = (deps: CommandDeps, identifier: string) =>
  findUserByUniqueKey(deps, `user-identifier:${identifier.toLowerCase()}`);

/**
 * Starts a session and issues its first access token. Every token the service issues belongs to a
 * session, so it can be revoked; the call waits until the session is projected, because the token's
 * first use checks it there.
 */
export async function startSession(
  deps: SignInDeps,
  input: {
    userId: string;
    identifier: string;
    method: AuthMethod;
    provider: string | null;
    ttlSeconds?: number;
    browser: boolean;
    upstreamRefreshToken?: string;
  },
  context: CommandContext,
): Promise<IssuedToken> {
  const sessionId = deps.newId();
  const secret = input.browser ? randomBytes(32).toString('base64url') : undefined;
  const sessionEnds = new Date(
    context.now.getTime() + (input.browser ? deps.sessionTtlHours * 3600_000 : (input.ttlSeconds ?? deps.accessTokenTtlSeconds) * 1000),
  );
  const result = await executeCommand(
    deps,
    sessionAggregate,
    sessionId,
    {
      type: 'StartSession',
      data: {
        id: sessionId,
        userId: input.userId,
        method: input.method,
        provider: input.provider,
        expiresAt: sessionEnds.toISOString(),
        refreshTokenHash: secret ? sha256(secret) : null,
        ...(input.upstreamRefreshToken === undefined ? {} : { upstreamRefreshToken: input.upstreamRefreshToken }),
      },
    },
    { ...context, actorId: input.userId },
  );
  await recordSignIn(
    deps,
    {
      type: 'SignInSucceeded',
      data: { userId: input.userId, method: input.method, provider: input.provider, identifier: input.identifier, sessionId },
    },
    { ...context, actorId: input.userId },
  );
  if (result.position !== undefined) await deps.waitFor(['sessions', 'users'], result.position);
  const ttl = input.browser ? deps.accessTokenTtlSeconds : (input.ttlSeconds ?? deps.accessTokenTtlSeconds);
  const issued = await deps.tokens.issue({ userId: input.userId, sessionId, ttlSeconds: ttl, now: context.now });
  return { token: issued.token, expiresAt: issued.expiresAt, sessionId, ...(secret ? { refreshToken: `${sessionId}.${secret}` } : {}) };
}

/** The enabled service-account provider's token lifetime, or undefined when it is disabled or absent. */
async function serviceAccountTtl(db: Db): Promise<number | undefined> {
  const row = await db
    .selectFrom('auth_providers')
    .select('configuration')
    .where('type', '=', 'svc_service_account')
    .where('enabled', '=', true)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  const ttl = row.configuration.tokenTtlSeconds;
  return typeof ttl === 'number' && ttl > 0 ? ttl : 3600;
}

/**
 * `serviceAccountToken(identifier, password)`: the one implementation behind the GraphQL mutation
 * and the deprecated REST endpoint. Rate-limited; every outcome is an audit fact.
 */
export async function serviceAccountToken(
  deps: SignInDeps,
  input: { identifier: string; password: string; address: string },
  context: CommandContext,
): Promise<IssuedToken> {
  // Counted before anything is checked: an attempt is a failure until it succeeds.
  await deps.limiter.admit(input.address, input.identifier, context.now);
  const fail = async (userId: string | null, reason: string, message: string): Promise<never> => {
    await recordSignIn(
      deps,
      {
        type: 'SignInFailed',
        data: { userId, method: 'service_account', provider: 'svc_service_account', identifier: input.identifier, reason },
      },
      context,
    );
    throw unauthenticated(message);
  };
  const ttl = await serviceAccountTtl(deps.db);
  const found = await findUserByIdentifier(deps, input.identifier);
  const hash = found?.state.fields.kind === 'service_account' ? found.state.fields.passwordHash : null;
  // Always spend the same work, whether or not the identifier exists.
  const valid = await deps.passwords.verify(input.password, hash);
  if (ttl === undefined) return fail(found?.id ?? null, 'provider_disabled', 'service account sign-in is disabled');
  if (!found || !valid) return fail(found?.id ?? null, 'invalid_credentials', INVALID_CREDENTIALS);
  // A deactivated account answers as a wrong password would, right password or not: no oracle for
  // its password (docs/decisions/0010-deactivated-sign-in.md). The audit log keeps the reason.
  if (found.state.deactivated) return fail(found.id, 'user_deactivated', INVALID_CREDENTIALS);
  await deps.limiter.succeeded(input.identifier);
  if (hash !== null && deps.passwords.needsRehash(hash)) await rehashPassword(deps, found.id, hash, input.password, context);
  return startSession(
    deps,
    {
      userId: found.id,
      identifier: input.identifier,
      method: 'service_account',
      provider: 'svc_service_account',
      ttlSeconds: ttl,
      browser: false,
    },
    context,
  );
}

/** The one answer to a failed password sign-in, whatever failed: unknown identifier, wrong password, deactivated account. */
export const INVALID_CREDENTIALS = 'invalid identifier or password';

/**
 * The transparent rehash: a hash made with weaker parameters than today's is replaced, while the
 * password is in hand. Only if the hash is still the one just verified (a concurrent password change
 * wins); a failure is logged and the sign-in goes on, the next one tries again.
 */
async function rehashPassword(
  deps: SignInDeps,
  userId: string,
  previousHash: string,
  password: string,
  context: CommandContext,
): Promise<void> {
  try {
    const passwordHash = await deps.passwords.hash(password);
    await executeCommand(
      deps,
      userAggregate,
      userId,
      { type: 'RehashPassword', data: { previousHash, passwordHash } },
      { ...context, actorId: userId },
    );
  } catch (error) {
    deps.log.warn({ err: error, userId }, 'could not store the rehashed password; the next sign-in tries again');
  }
}
