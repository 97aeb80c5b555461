import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A GitHub account: the `/user` answer and the `/user/emails` list. */
export interface GithubAccount {
  readonly id: number;
  readonly login: string;
  readonly name: string | null;
  readonly emails: readonly { email: string; primary: boolean; verified: boolean }[];
}

/**
 * A GitHub-compatible OAuth app server and user API on 127.0.0.1, with GitHub Enterprise paths
 * (`/login/oauth/*`, `/api/v3/*`). Like github.com it answers token errors with HTTP 200 and an
 * `error` member, checks PKCE (S256) when the authorization asked for it, and accepts each code once.
 */
export interface GithubIdp {
  /** How many token requests (which carry the client secret) reached the provider. */
  readonly tokenRequests: number;
  readonly authorizeUrl: string;
  readonly tokenUrl: string;
  readonly apiUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly accounts: Map<string, GithubAccount>;
  /** Login of who signs in at the next authorization. */
  nextLogin: string;
  /** The next authorization is refused by the user (`error=access_denied`). */
  deny: boolean;
  /** Every authorization request's query (tests assert what the service sent). */
  readonly authorizeRequests: URLSearchParams[];
  close(): Promise<void>;
}

interface Grant {
  readonly login: string;
  readonly redirectUri: string;
  readonly challenge: string | null;
  used: boolean;
}

async function readBody(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return (req.headers['content-type'] ?? '').includes('json')
    ? new URLSearchParams(JSON.parse(text) as Record<string, string>)
    : new URLSearchParams(text);
}

const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
};

export async function startGithubIdp(options: { clientId?: string; clientSecret?: string } = {}): Promise<GithubIdp> {
  const clientId = options.clientId ?? 'Iv1.testclient';
  const clientSecret = options.clientSecret ?? 'github-test-secret-value';
  const accounts = new Map<string, GithubAccount>();
  const codes = new Map<string, Grant>();
  const tokens = new Map<string, string>();
  const authorizeRequests: URLSearchParams[] = [];
  const state = { nextLogin: '', deny: false, tokenRequests: 0 };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
      const q = url.searchParams;
      authorizeRequests.push(q);
      const redirect = new URL(q.get('redirect_uri') ?? '');
      if (q.get('client_id') !== clientId) return json(res, 400, { error: 'unknown client' });
      redirect.searchParams.set('state', q.get('state') ?? '');
      if (state.deny) {
        redirect.searchParams.set('error', 'access_denied');
      } else {
        const code = randomBytes(10).toString('hex');
        const method = q.get('code_challenge_method');
        if (q.get('code_challenge') && method !== 'S256') return json(res, 400, { error: 'only S256' });
        codes.set(code, {
          login: state.nextLogin,
          redirectUri: q.get('redirect_uri') ?? '',
          challenge: q.get('code_challenge'),
          used: false,
        });
        redirect.searchParams.set('code', code);
      }
      res.writeHead(302, { location: redirect.href });
      res.end();
      return;
    }
    if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      state.tokenRequests += 1;
      const form = await readBody(req);
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const [basicId, basicSecret] = basic ? Buffer.from(basic, 'base64').toString().split(':').map(decodeURIComponent) : [];
      if ((form.get('client_id') ?? basicId) !== clientId || (form.get('client_secret') ?? basicSecret) !== clientSecret) {
        return json(res, 200, {
          error: 'incorrect_client_credentials',
          error_description: 'The client_id and/or client_secret passed are incorrect.',
        });
      }
      const grant = codes.get(form.get('code') ?? '');
      const bad = (): void =>
        json(res, 200, { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' });
      if (!grant || grant.used) return bad();
      grant.used = true;
      if (grant.redirectUri !== form.get('redirect_uri'))
        return json(res, 200, {
          error: 'redirect_uri_mismatch',
          error_description: 'The redirect_uri MUST match the registered callback URL.',
        });
      if (grant.challenge !== null) {
        const verifier = form.get('code_verifier') ?? '';
        if (createHash('sha256').update(verifier).digest('base64url') !== grant.challenge) return bad();
      }
      const token = `gho_${randomBytes(16).toString('hex')}`;
      tokens.set(token, grant.login);
      return json(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
    }
    if (req.method === 'GET' && url.pathname.startsWith('/api/v3/')) {
      const login = tokens.get(/^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '');
      const account = login === undefined ? undefined : accounts.get(login);
      if (!account) return json(res, 401, { message: 'Bad credentials' });
      if (url.pathname === '/api/v3/user') return json(res, 200, { id: account.id, login: account.login, name: account.name });
      if (url.pathname === '/api/v3/user/emails')
        return json(
          res,
          200,
          account.emails.map((e) => ({ ...e, visibility: e.primary ? 'private' : null })),
        );
    }
    json(res, 404, { message: 'Not Found' });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => json(res, 500, { message: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    authorizeUrl: `${origin}/login/oauth/authorize`,
    tokenUrl: `${origin}/login/oauth/access_token`,
    apiUrl: `${origin}/api/v3`,
    clientId,
    clientSecret,
    accounts,
    get tokenRequests() {
      return state.tokenRequests;
    },
    get nextLogin() {
      return state.nextLogin;
    },
    set nextLogin(value: string) {
      state.nextLogin = value;
    },
    get deny() {
      return state.deny;
    },
    set deny(value: boolean) {
      state.deny = value;
    },
    authorizeRequests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
