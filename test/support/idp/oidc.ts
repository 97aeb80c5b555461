import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

/** Claims of one account at the test identity provider (`sub` is the account id). */
export type AccountClaims = Record<string, unknown>;

/**
 * A real OpenID Provider (oidc-provider) on 127.0.0.1, shaped like Google or like a Microsoft Entra
 * tenant (`/{tenant}/v2.0` issuer path). The "user" at the provider's login page is whoever
 * `nextAccount` names: the interaction is answered at once with login and consent.
 */
export interface OidcIdp {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly origin: string;
  /** Accounts by id; a missing id (or one in `disabled`) is unknown to the provider. */
  readonly accounts: Map<string, AccountClaims>;
  /** Accounts the provider no longer accepts: their refresh tokens stop working. */
  readonly disabled: Set<string>;
  /** Who signs in at the next interaction. */
  nextAccount: string;
  /** The next interaction is cancelled by the user (`error=access_denied`). */
  deny: boolean;
  /** Whether refresh tokens are issued (Google does with access_type=offline and consent). */
  issueRefreshTokens: boolean;
  /** Every `/token` request's form (tests assert what the service sent). */
  readonly tokenRequests: URLSearchParams[];
  close(): Promise<void>;
}

export interface OidcIdpOptions {
  /** Issuer path below the origin, e.g. `/00000000-…/v2.0`; none for Google's shape. */
  readonly path?: string;
  readonly redirectUris: readonly string[];
  readonly clientId?: string;
  readonly clientSecret?: string;
  /** Custom claims an account may carry (e.g. `tid`, `oid`, `xms_edov`), given in the `openid` scope. */
  readonly extraClaims?: readonly string[];
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startOidcIdp(options: OidcIdpOptions): Promise<OidcIdp> {
  const path = options.path ?? '';
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingJwk = { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'test-key-1' };
  const accounts = new Map<string, AccountClaims>();
  const disabled = new Set<string>();
  const tokenRequests: URLSearchParams[] = [];
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${origin}${path}`;
  const clientId = options.clientId ?? 'test-client';
  const clientSecret = options.clientSecret ?? 'test-client-secret-value';

  const state = { nextAccount: '', deny: false, issueRefreshTokens: true };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [...options.redirectUris],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: { keys: [signingJwk] },
    cookies: { keys: ['oidc-test-cookie-key'] },
    claims: {
      openid: ['sub', ...(options.extraClaims ?? [])],
      email: ['email', 'email_verified'],
      profile: ['name', 'preferred_username'],
    },
    scopes: ['openid', 'email', 'profile', 'offline_access'],
    // Google and Entra put the scope's claims in the ID token itself.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 3600, IdToken: 600, Interaction: 600, RefreshToken: 86_400, Session: 3600 },
    features: { devInteractions: { enabled: false } },
    extraParams: ['access_type'],
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `${path}/interaction/${interaction.uid}` },
    issueRefreshToken: (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) =>
      state.issueRefreshTokens && client.grantTypeAllowed('refresh_token'),
    findAccount(_ctx: unknown, id: string) {
      const claims = accounts.get(id);
      if (!claims || disabled.has(id)) return Promise.resolve(undefined);
      return Promise.resolve({ accountId: id, claims: () => ({ ...claims, sub: id }) });
    },
  });
  const handle = provider.callback();

  async function interaction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (state.deny) {
      await provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'the user cancelled' },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const grant = new provider.Grant({ accountId: state.nextAccount, clientId: details.params.client_id ?? '' });
    grant.addOIDCScope(details.params.scope ?? 'openid');
    const grantId = await grant.save();
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: state.nextAccount }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  }

  server.on('request', (req: IncomingMessage & { originalUrl?: string }, res: ServerResponse) => {
    const url = req.url ?? '/';
    if (!url.startsWith(`${path}/`)) {
      res.statusCode = 404;
      res.end();
      return;
    }
    if (url.startsWith(`${path}/interaction/`)) {
      interaction(req, res).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
      return;
    }
    const forward = (body?: string): void => {
      if (body !== undefined) {
        tokenRequests.push(new URLSearchParams(body));
        // Hand the body on to the provider, which reads the stream itself.
        const replay = req as IncomingMessage & { body?: unknown };
        replay.body = Object.fromEntries(new URLSearchParams(body));
      }
      req.originalUrl = url;
      req.url = url.slice(path.length);
      handle(req, res);
    };
    if (req.method === 'POST' && url.startsWith(`${path}/token`)) readBody(req).then(forward, () => res.end());
    else forward();
  });

  return {
    issuer,
    clientId,
    clientSecret,
    origin,
    accounts,
    disabled,
    get nextAccount() {
      return state.nextAccount;
    },
    set nextAccount(value: string) {
      state.nextAccount = value;
    },
    get deny() {
      return state.deny;
    },
    set deny(value: boolean) {
      state.deny = value;
    },
    get issueRefreshTokens() {
      return state.issueRefreshTokens;
    },
    set issueRefreshTokens(value: boolean) {
      state.issueRefreshTokens = value;
    },
    tokenRequests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
