import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { executeCommand } from '../../commands/handler.js';
import { sessionAggregate } from '../../commands/session.js';
import { credentials } from '../../auth/credentials.js';
import { guestLogin } from '../../auth/guest.js';
import { serviceAccountToken, sha256, type IssuedToken, type SignInDeps } from '../../auth/sign-in.js';
import { AppError } from '../../errors.js';
import type { Services } from '../../services.js';
import { teamsOf } from '../../read/entity-access.js';
import { authorize } from '../../edge/authorize.js';
import { commandContext } from '../../edge/context.js';
import { parseInput } from '../../validation.js';

/** The refresh cookie's name. */
export const REFRESH_COOKIE = 'il_refresh';

/**
 * Set beside the refresh cookie and cleared with it, readable by the web UI: it says a browser
 * session may exist (and nothing else: its value is `1`), so the UI asks `/api/auth/refresh` only
 * then instead of collecting a 401 (a console error) on every visit of a signed-out browser.
 */
export const SESSION_HINT_COOKIE = 'il_session';

/**
 * The refresh cookie (HttpOnly, SameSite=Strict, scoped to the auth endpoints, Secure over https)
 * and its hint for the UI, as two Set-Cookie values; `maxAgeSeconds` 0 clears both.
 */
export function refreshCookie(services: Services, value: string, maxAgeSeconds: number): [string, string] {
  const secure = services.config.BASE_URL.startsWith('https://') ? '; Secure' : '';
  return [
    `${REFRESH_COOKIE}=${value}; Path=/api/auth; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`,
    `${SESSION_HINT_COOKIE}=${maxAgeSeconds > 0 ? '1' : ''}; Path=/; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`,
  ];
}

/** A cookie of the request, by name. */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

/**
 * Cookie-authenticated endpoints must not be triggerable from another site: SameSite=Strict keeps
 * the cookie off cross-site requests, and the Origin (sent by browsers on every POST) must be ours.
 */
function ensureSameOrigin(request: FastifyRequest, services: Services): void {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== new URL(services.config.BASE_URL).origin) {
    throw new AppError('FORBIDDEN', `cross-origin request refused (Origin ${origin} is not ${new URL(services.config.BASE_URL).origin})`);
  }
}

/** The sign-in, refresh, logout, me and token endpoints under /api/auth. */
export function authRoutes(app: FastifyInstance, services: Services, signIn: SignInDeps): void {
  const sendToken = (reply: FastifyReply, issued: IssuedToken): FastifyReply => {
    if (issued.refreshToken)
      void reply.header('Set-Cookie', refreshCookie(services, issued.refreshToken, services.config.SESSION_TTL_HOURS * 3600));
    return reply.header('Cache-Control', 'no-store').send({ token: issued.token, expiresAt: issued.expiresAt.toISOString() });
  };

  app.get('/auth/.well-known/jwks.json', { config: { public: true } }, (_request, reply) =>
    reply.header('Cache-Control', 'public, max-age=300').send(signIn.tokens.jwks),
  );

  // Deprecated in favour of the GraphQL mutation serviceAccountToken; same code path.
  app.post('/auth/service_account/token', { config: { public: true } }, async (request, reply) => {
    const body = parseInput(credentials, request.body === undefined ? {} : request.body, 'body');
    const issued = await serviceAccountToken(signIn, { ...body, address: request.ip }, commandContext(request, services.now()));
    void reply.header('Deprecation', 'true').header('Link', '</api/graphql>; rel="successor-version"');
    return sendToken(reply, issued);
  });

  app.post('/auth/guest/login', { config: { public: true } }, async (request, reply) => {
    ensureSameOrigin(request, services);
    return sendToken(reply, await guestLogin(signIn, request.ip, commandContext(request, services.now())));
  });

  app.post('/auth/refresh', { config: { public: true } }, async (request, reply) => {
    ensureSameOrigin(request, services);
    const cookie = readCookie(request, REFRESH_COOKIE);
    const [sessionId, secret] = cookie?.split('.') ?? [];
    if (!sessionId || !secret || !/^[0-9a-f-]{36}$/.test(sessionId)) {
      // A hint left without its cookie (cleared by hand, or by the browser) goes too.
      void reply.header('Set-Cookie', refreshCookie(services, '', 0));
      throw new AppError('UNAUTHENTICATED', 'no session: sign in again');
    }
    const now = services.now();
    const context = commandContext(request, now);
    // SSO sessions: the provider must still be enabled, and Google must still accept the account.
    await services.sso.flows.beforeRefresh(sessionId, sha256(secret), context).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'UNAUTHENTICATED') void reply.header('Set-Cookie', refreshCookie(services, '', 0));
      throw error;
    });
    const next = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + services.config.SESSION_TTL_HOURS * 3600_000).toISOString();
    const result = await executeCommand(
      signIn,
      sessionAggregate,
      sessionId,
      { type: 'RefreshSession', data: { presentedHash: sha256(secret), nextHash: sha256(next), expiresAt, now: now.toISOString() } },
      context,
    );
    if (result.position !== undefined) await services.waitFor(['sessions'], result.position);
    if (result.state.status !== 'open') {
      void reply.header('Set-Cookie', refreshCookie(services, '', 0));
      throw new AppError(
        'UNAUTHENTICATED',
        result.events.some((e) => e.type === 'SessionEnded' && e.data.reason === 'refresh_token_reused')
          ? 'refresh token reused: the session was ended for safety; sign in again'
          : 'the session has expired; sign in again',
      );
    }
    const issued = await signIn.tokens.issue({
      userId: result.state.userId,
      sessionId,
      ttlSeconds: services.config.ACCESS_TOKEN_TTL_SECONDS,
      now,
    });
    return sendToken(reply, { token: issued.token, expiresAt: issued.expiresAt, sessionId, refreshToken: `${sessionId}.${next}` });
  });

  /** Ends the session of the refresh cookie, or of the bearer token when there is no cookie. */
  app.post('/auth/logout', { config: { public: true, optionalAuth: true } }, async (request, reply) => {
    ensureSameOrigin(request, services);
    const [cookieSession, cookieSecret] = readCookie(request, REFRESH_COOKIE)?.split('.') ?? [];
    const end = async (sessionId: string, presentedHash?: string): Promise<boolean> => {
      const result = await executeCommand(
        signIn,
        sessionAggregate,
        sessionId,
        { type: 'EndSession', data: { reason: 'logout', presentedHash } },
        commandContext(request, services.now()),
      );
      if (result.position !== undefined) await services.waitFor(['sessions'], result.position);
      return result.events.length > 0;
    };
    // The cookie counts only with its secret; otherwise the bearer token's own session is ended.
    const endedByCookie =
      cookieSession && cookieSecret && /^[0-9a-f-]{36}$/.test(cookieSession) ? await end(cookieSession, sha256(cookieSecret)) : false;
    const bearerSession = principalSession(request);
    if (!endedByCookie && bearerSession) await end(bearerSession);
    return reply
      .header('Set-Cookie', refreshCookie(services, '', 0))
      .status(204)
      .send();
  });

  app.get('/auth/me', async (request) => {
    const principal = authorize(request);
    const user = await services.db.selectFrom('users').selectAll().where('id', '=', principal.userId).executeTakeFirstOrThrow();
    // The teams the caller is in and their role (listed, or by a group of their last sign-in).
    const teams = await myTeams(services, principal.userId);
    return {
      id: user.id,
      kind: user.kind,
      identifier: user.identifier,
      email: user.email,
      displayName: user.display_name,
      name: user.display_name ?? user.identifier,
      provider: user.provider,
      roles: user.roles,
      grants: user.grants,
      permissions: principal.permissions,
      method: principal.method,
      sessionId: principal.sessionId ?? null,
      teams,
    };
  });
}

/** The caller's teams with their names and the caller's role, by name. */
async function myTeams(services: Services, userId: string): Promise<{ id: string; name: string; role: 'member' | 'lead' }[]> {
  const mine = await teamsOf(services.db, userId);
  if (mine.length === 0) return [];
  const names = await services.db
    .selectFrom('teams')
    .select(['id', 'name'])
    .where(
      'id',
      'in',
      mine.map((team) => team.teamId),
    )
    .execute();
  const nameOf = new Map(names.map((row) => [row.id, row.name]));
  return mine
    .map((team) => ({ id: team.teamId, name: nameOf.get(team.teamId) ?? team.teamId, role: team.role }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

function principalSession(request: FastifyRequest): string | undefined {
  try {
    return authorize(request).sessionId;
  } catch {
    return undefined;
  }
}
