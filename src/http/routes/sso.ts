import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BACKSTAGE_TOKEN_TYPE, isBackstageToken } from '../../auth/backstage.js';
import { SSO_LOGIN_TTL_SECONDS } from '../../auth/sso/flow.js';
import { SsoError } from '../../auth/sso/errors.js';
import { AppError, notFound } from '../../errors.js';
import type { CommandContext } from '../../events/define.js';
import type { Services } from '../../services.js';
import { commandContext } from '../../edge/context.js';
import { readCookie, refreshCookie } from './auth.js';

/** The state cookie of a browser sign-in: `<sign-in id>.<state>`, for the callback only, used once. */
export const SSO_STATE_COOKIE = 'il_sso';

const PROVIDER_KEY = /^[a-z0-9_-]{1,100}$/;

/**
 * The request log line of a callback without the query's values: `code` and `state` are credentials
 * until used, and Fastify's default serializer would log the whole URL.
 */
const redactedQueryRequest = (request: FastifyRequest): Record<string, unknown> => {
  const [path = '', query] = request.url.split('?');
  const names = query === undefined ? [] : [...new URLSearchParams(query).keys()];
  return {
    method: request.method,
    url: names.length === 0 ? path : `${path}?${names.map((name) => `${encodeURIComponent(name)}=[redacted]`).join('&')}`,
    host: request.host,
    remoteAddress: request.ip,
  };
};

interface KeyParams {
  readonly key: string;
}

/**
 * SameSite=Lax, not Strict: the callback is a top-level GET arriving from the identity provider's
 * site, and a Strict cookie would not be sent with it.
 */
function stateCookie(services: Services, value: string, maxAgeSeconds: number): string {
  const secure = services.config.BASE_URL.startsWith('https://') ? '; Secure' : '';
  return `${SSO_STATE_COOKIE}=${value}; Path=/api/auth; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

/**
 * Browser single sign-on (docs/contract.md §5): `GET /auth/{key}/login` and `/auth/{key}/callback` for the
 * github, google and microsoft providers, and `POST /auth/backstage/token`, under `/api`. The browser
 * endpoints answer with redirects: to the identity provider, then to the web UI's `/` (signed in:
 * the refresh cookie is set) or `/login?error=<code>` (codes in src/auth/sso/errors.ts).
 */
export function ssoRoutes(app: FastifyInstance, services: Services): void {
  const base = services.config.BASE_URL;
  const flows = services.sso.flows;

  const keyOf = (request: FastifyRequest<{ Params: KeyParams }>): string => {
    const { key } = request.params;
    if (!PROVIDER_KEY.test(key)) throw notFound(`no auth provider with the key ${key.slice(0, 100)}`);
    return key;
  };

  /** A refused sign-in: audited with its code, logged without secrets, and the browser sent to the login page. */
  async function refuse(
    reply: FastifyReply,
    request: FastifyRequest,
    key: string,
    error: unknown,
    context: CommandContext,
    cookies: string[],
  ): Promise<FastifyReply> {
    // Not-found and rate limits are answers about the request itself, as problem details.
    if (error instanceof AppError && (error.code === 'NOT_FOUND' || error.code === 'RATE_LIMITED')) throw error;
    const refused =
      error instanceof SsoError
        ? error
        : new SsoError('server_error', error instanceof Error ? error.message : 'unknown error', {}, { cause: error });
    if (refused.code === 'server_error') request.log.error({ err: error, provider: key }, 'single sign-on failed');
    else request.log.info({ provider: key, reason: refused.code, detail: refused.message }, 'single sign-on refused');
    await flows
      .recordFailure(key, refused, context)
      .catch((auditError: unknown) => request.log.error({ err: auditError }, 'could not record a refused sign-in'));
    return reply.header('Set-Cookie', cookies).header('Cache-Control', 'no-store').redirect(`${base}/login?error=${refused.code}`, 302);
  }

  app.get<{ Params: KeyParams }>('/auth/:key/login', { config: { public: true } }, async (request, reply) => {
    const key = keyOf(request);
    const context = commandContext(request, services.now());
    try {
      const { location, cookie } = await flows.start(key, request.ip, context);
      return await reply
        .header('Set-Cookie', stateCookie(services, cookie, SSO_LOGIN_TTL_SECONDS))
        .header('Cache-Control', 'no-store')
        .redirect(location, 302);
    } catch (error) {
      return refuse(reply, request, key, error, context, []);
    }
  });

  const callbackOptions = { config: { public: true }, logSerializers: { req: redactedQueryRequest } } as const;
  app.get<{ Params: KeyParams; Querystring: Record<string, unknown> }>('/auth/:key/callback', callbackOptions, async (request, reply) => {
    const key = keyOf(request);
    const context = commandContext(request, services.now());
    // The state cookie is spent whatever happens.
    const cleared = stateCookie(services, '', 0);
    try {
      const issued = await flows.complete(key, request.query, readCookie(request, SSO_STATE_COOKIE), request.ip, context);
      const session = refreshCookie(services, issued.refreshToken ?? '', services.config.SESSION_TTL_HOURS * 3600);
      return await reply
        .header('Set-Cookie', [cleared, ...session])
        .header('Cache-Control', 'no-store')
        .redirect(`${base}/`, 302);
    } catch (error) {
      return refuse(reply, request, key, error, context, [cleared]);
    }
  });

  // The portal's token travels as the bearer token of this request (Authorization: Bearer <token>).
  app.post('/auth/backstage/token', { config: { public: true } }, async (request, reply) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    const token = match?.[1];
    if (!token) throw new AppError('UNAUTHENTICATED', "send the Backstage user token as 'Authorization: Bearer <token>'");
    if (!isBackstageToken(token))
      throw new AppError('UNAUTHENTICATED', `not a Backstage user token (its header must say typ ${BACKSTAGE_TOKEN_TYPE})`);
    const issued = await services.sso.backstage.exchange(token, request.ip, commandContext(request, services.now()));
    return reply.header('Cache-Control', 'no-store').send({ token: issued.token, expiresAt: issued.expiresAt.toISOString() });
  });
}
