import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';

type PrivateKey = Parameters<SignJWT['sign']>[0];

/** The header and claims of a Backstage user identity token, each overridable by a test. */
export interface BackstageTokenOptions {
  readonly sub?: string;
  readonly aud?: string | null;
  /** Seconds since the epoch; null leaves `exp` out. */
  readonly exp?: number | null;
  readonly iat?: number;
  readonly typ?: string;
  readonly claims?: JWTPayload;
}

/**
 * A developer portal's auth backend on 127.0.0.1: ES256 keys published at
 * `/api/auth/.well-known/jwks.json` (like Backstage's), `rotate()` to replace them, and user tokens
 * signed the way Backstage signs them (`typ: vnd.backstage.user`, `aud: backstage`, `sub: user:…`).
 */
export interface BackstagePortal {
  readonly jwksUrl: string;
  /** JWKS fetches so far (tests assert caching). */
  readonly fetches: number;
  /** A new signing key; the old one leaves the published set. */
  rotate(): Promise<void>;
  /** A token signed with the current key. */
  sign(options?: BackstageTokenOptions): Promise<string>;
  close(): Promise<void>;
}

interface Key {
  readonly kid: string;
  readonly privateKey: PrivateKey;
  readonly publicJwk: JWK;
}

async function newKey(): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = randomUUID();
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

/** Signs a Backstage-shaped token with `key` and `alg` (also HS256 with a shared secret). */
export async function signBackstageToken(
  key: PrivateKey | Uint8Array,
  alg: string,
  kid: string | undefined,
  options: BackstageTokenOptions,
  nowSeconds: number,
): Promise<string> {
  const payload: JWTPayload = { ent: [options.sub ?? 'user:default/jane'], ...options.claims, sub: options.sub ?? 'user:default/jane' };
  if (options.aud !== null) payload.aud = options.aud ?? 'backstage';
  if (options.exp !== null) payload.exp = options.exp ?? nowSeconds + 3600;
  payload.iat = options.iat ?? nowSeconds;
  payload.iss = 'http://portal.test/api/auth';
  return new SignJWT(payload).setProtectedHeader({ alg, typ: options.typ ?? 'vnd.backstage.user', ...(kid ? { kid } : {}) }).sign(key);
}

export async function startBackstagePortal(now: () => number): Promise<BackstagePortal> {
  let current = await newKey();
  let fetches = 0;
  const server = createServer((req, res) => {
    if (req.url === '/api/auth/.well-known/jwks.json') {
      fetches += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [current.publicJwk] }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    jwksUrl: `${origin}/api/auth/.well-known/jwks.json`,
    get fetches() {
      return fetches;
    },
    async rotate() {
      current = await newKey();
    },
    sign: (options = {}) => signBackstageToken(current.privateKey, 'ES256', current.kid, options, now()),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
