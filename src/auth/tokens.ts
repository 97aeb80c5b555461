import { randomUUID } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import path from 'node:path';
import * as jose from 'jose';
import { AppError } from '../errors.js';
import { Lru } from '../lru.js';

/** The only algorithm the service signs with and accepts for its own tokens (no `none`, no HS*). */
export const TOKEN_ALGORITHM = 'EdDSA';
/** The `aud` of every token the service issues. */
export const TOKEN_AUDIENCE = 'infraledger';
/**
 * The `typ` header of the service's access tokens (RFC 9068; RFC 8725 §3.11): a JWT of another type
 * signed with the same key (an ID token, a future refresh or logout token) is never taken for one.
 */
export const ACCESS_TOKEN_TYPE = 'at+jwt';

/** Whatever jose signs with (a WebCrypto key); named from jose so no DOM lib is needed. */
type PrivateKey = Parameters<jose.SignJWT['sign']>[0];

/** The key the service signs its tokens with (private JWK, its public part and `kid`). */
export interface SigningKey {
  readonly kid: string;
  readonly privateKey: PrivateKey;
  readonly publicJwk: jose.JWK;
}

/** A service token whose signature, issuer, audience and expiry checked out. */
export interface VerifiedToken {
  readonly userId: string;
  readonly sessionId: string;
  readonly tokenId: string;
  readonly issuedAt: Date;
  readonly expiresAt: Date;
}

/** Issues and verifies the service's own JWTs, and publishes their JWKS. */
export interface TokenService {
  /** The public keys, as `GET /api/auth/.well-known/jwks.json` serves them. */
  readonly jwks: { readonly keys: readonly jose.JWK[] };
  issue(input: {
    userId: string;
    sessionId: string;
    ttlSeconds: number;
    now: Date;
  }): Promise<{ token: string; expiresAt: Date; tokenId: string }>;
  /** Verifies signature, algorithm, issuer, audience and expiry; throws UNAUTHENTICATED naming why. */
  verify(token: string, now?: Date): Promise<VerifiedToken>;
  /** Whether this exact token was verified before and is remembered (so it is one of ours, not a portal's). */
  knows(token: string): boolean;
}

const unauthenticated = (message: string): AppError => new AppError('UNAUTHENTICATED', message);

/** jose's failures in words a client can act on; nothing about keys or internals. */
function explain(error: unknown): AppError {
  if (error instanceof jose.errors.JWTExpired) return unauthenticated('token expired');
  if (error instanceof jose.errors.JWTClaimValidationFailed) {
    if (error.claim === 'typ') return unauthenticated(`token type not accepted: an access token says typ ${ACCESS_TOKEN_TYPE}`);
    return error.claim === 'iss' || error.claim === 'aud'
      ? unauthenticated('token was not issued for this service')
      : unauthenticated(`invalid token: ${error.claim} claim`);
  }
  if (error instanceof jose.errors.JOSEAlgNotAllowed || error instanceof jose.errors.JOSENotSupported)
    return unauthenticated('token algorithm not allowed');
  if (error instanceof jose.errors.JWSSignatureVerificationFailed) return unauthenticated('invalid token signature');
  if (error instanceof jose.errors.JWKSNoMatchingKey) return unauthenticated('token signed with an unknown key');
  return unauthenticated('malformed bearer token');
}

const claimsShape = (payload: jose.JWTPayload): VerifiedToken => {
  const { sub, sid, jti, iat, exp } = payload as jose.JWTPayload & { sid?: unknown };
  if (typeof sub !== 'string' || typeof sid !== 'string' || typeof jti !== 'string' || typeof iat !== 'number' || typeof exp !== 'number') {
    throw unauthenticated('invalid token: missing claims');
  }
  return { userId: sub, sessionId: sid, tokenId: jti, issuedAt: new Date(iat * 1000), expiresAt: new Date(exp * 1000) };
};

/** Seconds of clock skew allowed on `exp` (here and in jose's check). */
const CLOCK_TOLERANCE_SECONDS = 5;

/** How many verified tokens are remembered (about 300 bytes each). */
export const VERIFIED_TOKEN_CACHE_SIZE = 10_000;

/**
 * Signs and verifies the service's own access tokens. A signature check costs about 0.2 ms of CPU,
 * as much as a whole simple read, and a token is presented on every request of its lifetime; the
 * outcome of checking one exact token string never changes, so verified tokens are remembered (LRU,
 * bounded). Only the time-dependent part, expiry, is checked again on each use; revocation and
 * deactivation are the authenticator's per-request lookups and are never cached.
 */
export function createTokenService(key: SigningKey, issuer: string, previous: readonly jose.JWK[] = []): TokenService {
  // The active key signs; previous keys (a rotation in progress) only verify. All are published.
  const keys = [key.publicJwk, ...previous.filter((jwk) => jwk.kid !== key.kid)];
  const keySet = jose.createLocalJWKSet({ keys });
  const verified = new Lru<string, VerifiedToken>(VERIFIED_TOKEN_CACHE_SIZE);
  return {
    jwks: { keys },
    async issue({ userId, sessionId, ttlSeconds, now }) {
      const tokenId = randomUUID();
      const iat = Math.floor(now.getTime() / 1000);
      const token = await new jose.SignJWT({ sid: sessionId })
        .setProtectedHeader({ alg: TOKEN_ALGORITHM, kid: key.kid, typ: ACCESS_TOKEN_TYPE })
        .setIssuer(issuer)
        .setAudience(TOKEN_AUDIENCE)
        .setSubject(userId)
        .setJti(tokenId)
        .setIssuedAt(iat)
        .setExpirationTime(iat + ttlSeconds)
        .sign(key.privateKey);
      return { token, expiresAt: new Date((iat + ttlSeconds) * 1000), tokenId };
    },
    knows: (token) => verified.has(token),
    async verify(token, now = new Date()) {
      const known = verified.get(token);
      if (known) {
        // jose's rule: expired once now - tolerance reaches exp (whole seconds).
        if (Math.floor(now.getTime() / 1000) - CLOCK_TOLERANCE_SECONDS >= known.expiresAt.getTime() / 1000) {
          verified.delete(token);
          throw unauthenticated('token expired');
        }
        return known;
      }
      try {
        const { payload } = await jose.jwtVerify(token, keySet, {
          algorithms: [TOKEN_ALGORITHM],
          typ: ACCESS_TOKEN_TYPE,
          issuer,
          audience: TOKEN_AUDIENCE,
          requiredClaims: ['sub', 'jti', 'iat', 'exp'],
          currentDate: now,
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
        });
        const claims = claimsShape(payload);
        verified.set(token, claims);
        return claims;
      } catch (error) {
        throw error instanceof AppError ? error : explain(error);
      }
    },
  };
}

/** Members of a JWK that are private (OKP `d`; RSA and EC ones too, though only Ed25519 is accepted): never published. */
const PRIVATE_MEMBERS = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']);

/**
 * A verification key from an Ed25519 JWK, public or private: only its public members are kept (the
 * JWKS publishes what this returns), with `kid` (its thumbprint when absent), `alg` and `use`.
 * @throws Error naming the setting when the key is not an Ed25519 JWK
 */
export async function verificationKey(jwk: Readonly<Record<string, unknown>>, setting = 'TOKEN_SIGNING_KEYS_PREVIOUS'): Promise<jose.JWK> {
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string')
    throw new Error(`${setting} must hold Ed25519 JWKs (kty OKP, crv Ed25519, with x)`);
  const publicPart = Object.fromEntries(Object.entries(jwk).filter(([member]) => !PRIVATE_MEMBERS.has(member))) as jose.JWK;
  // Import it, so a malformed key fails at start rather than on the first token it should verify.
  await jose.importJWK({ ...publicPart, alg: TOKEN_ALGORITHM }, TOKEN_ALGORITHM);
  const kid = typeof jwk.kid === 'string' ? jwk.kid : await jose.calculateJwkThumbprint(publicPart);
  return { kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid, alg: TOKEN_ALGORITHM, use: 'sig' };
}

/** Turns a private Ed25519 JWK (with or without `kid`) into a signing key. */
export async function importSigningKey(jwk: jose.JWK): Promise<SigningKey> {
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.d !== 'string')
    throw new Error('TOKEN_SIGNING_KEY must be a private Ed25519 JWK (kty OKP, crv Ed25519, with d)');
  const kid = jwk.kid ?? (await jose.calculateJwkThumbprint(jwk));
  const privateKey = (await jose.importJWK({ ...jwk, alg: TOKEN_ALGORITHM }, TOKEN_ALGORITHM)) as PrivateKey;
  const { d: _private, ...publicJwk } = jwk;
  return { kid, privateKey, publicJwk: { ...publicJwk, kid, alg: TOKEN_ALGORITHM, use: 'sig' } };
}

/** A fresh private Ed25519 JWK with its thumbprint as `kid` (what `npm run keygen` prints). */
export async function generateSigningJwk(): Promise<jose.JWK> {
  const { privateKey } = await jose.generateKeyPair(TOKEN_ALGORITHM, { crv: 'Ed25519', extractable: true });
  const jwk = await jose.exportJWK(privateKey);
  return { ...jwk, kid: await jose.calculateJwkThumbprint(jwk) };
}

/** Parses TOKEN_SIGNING_KEY (a JWK as JSON) without ever echoing it. */
export async function signingKeyFromText(text: string): Promise<SigningKey> {
  let jwk: jose.JWK;
  try {
    jwk = JSON.parse(text) as jose.JWK;
  } catch {
    throw new Error('TOKEN_SIGNING_KEY is not valid JSON (generate one with: npm run -s keygen)');
  }
  return importSigningKey(jwk);
}

/** Where embedded mode keeps its signing key, and the public parts of the keys it rotated away. */
export const EMBEDDED_KEY_FILE = 'token-signing-key.json';
export /**
 *
 */
const EMBEDDED_PREVIOUS_KEYS_FILE = 'token-signing-keys-previous.json';

/** A key rotated away in embedded mode: its public part and when it stopped signing. */
export type RetiredKey = jose.JWK & { readonly retiredAt: string };

/** The keys embedded mode rotated away (public parts), oldest first; none before the first rotation. */
export async function readEmbeddedPreviousKeys(dataDir: string): Promise<RetiredKey[]> {
  const text = await readFile(path.join(dataDir, EMBEDDED_PREVIOUS_KEYS_FILE), 'utf8').catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '[]';
    throw error;
  });
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) throw new Error(`${path.join(dataDir, EMBEDDED_PREVIOUS_KEYS_FILE)} is not a JSON array`);
  return parsed as RetiredKey[];
}

/** Embedded mode keeps its key pair in DATA_DIR, created once (exclusively, so replicas cannot race). */
export async function loadOrCreateEmbeddedSigningKey(dataDir: string): Promise<{ key: SigningKey; created: boolean }> {
  const file = path.join(dataDir, EMBEDDED_KEY_FILE);
  try {
    const handle = await open(file, 'wx', 0o600);
    const jwk = await generateSigningJwk();
    await handle.writeFile(JSON.stringify(jwk));
    await handle.close();
    return { key: await importSigningKey(jwk), created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { key: await signingKeyFromText(await readFile(file, 'utf8')), created: false };
  }
}
