import { describe, expect, it } from 'vitest';
import { decodeProtectedHeader, SignJWT } from 'jose';
import { createTokenService, generateSigningJwk, importSigningKey, TOKEN_AUDIENCE } from '../../src/auth/tokens.js';

const ISSUER = 'http://localhost:8080';
const USER = '00000000-0000-4000-8000-000000000001';
const SESSION = '00000000-0000-4000-8000-000000000002';

async function service() {
  return createTokenService(await importSigningKey(await generateSigningJwk()), ISSUER);
}

describe('token service: remembered verifications', () => {
  const issuedAt = new Date('2025-01-01T00:00:00.000Z');
  const at = (seconds: number): Date => new Date(issuedAt.getTime() + seconds * 1000);

  it('expires a remembered token at exactly the instant a fresh check would (exp plus 5 s tolerance)', async () => {
    const tokens = await service();
    const { token } = await tokens.issue({ userId: USER, sessionId: SESSION, ttlSeconds: 60, now: issuedAt });
    // A second service has never seen the token: jose's own verdict, for comparison.
    const fresh = createTokenService(await importSigningKey(await generateSigningJwk()), ISSUER);
    expect((await tokens.verify(token, at(1))).sessionId).toBe(SESSION);
    expect((await tokens.verify(token, at(64))).userId).toBe(USER);
    await expect(tokens.verify(token, at(65))).rejects.toThrow('token expired');
    // After the refusal it is checked in full again, with the same answer.
    await expect(tokens.verify(token, at(65))).rejects.toThrow('token expired');
    await expect(fresh.verify(token, at(65))).rejects.toThrow(/signed with an unknown key|invalid token signature/);
  });

  it('knows a token once it verified it, and forgets it once it expired (only its own tokens are known)', async () => {
    const tokens = await service();
    const { token } = await tokens.issue({ userId: USER, sessionId: SESSION, ttlSeconds: 60, now: issuedAt });
    expect(tokens.knows(token)).toBe(false);
    await tokens.verify(token, at(1));
    expect(tokens.knows(token)).toBe(true);
    await expect(tokens.verify(token, at(65))).rejects.toThrow('token expired');
    expect(tokens.knows(token)).toBe(false);
    const other = await (await service()).issue({ userId: USER, sessionId: SESSION, ttlSeconds: 60, now: issuedAt });
    await expect(tokens.verify(other.token, at(1))).rejects.toThrow();
    expect(tokens.knows(other.token)).toBe(false);
  });

  it('never lets a tampered copy of a remembered token through', async () => {
    const tokens = await service();
    const { token } = await tokens.issue({ userId: USER, sessionId: SESSION, ttlSeconds: 60, now: issuedAt });
    await tokens.verify(token, at(1));
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: '00000000-0000-4000-8000-00000000dead' }),
    ).toString('base64url');
    await expect(tokens.verify(`${header}.${forged}.${signature}`, at(2))).rejects.toThrow('invalid token signature');
    await expect(tokens.verify(`${token}x`, at(2))).rejects.toThrow();
  });

  it('matches jose on an expired token it has never seen', async () => {
    const tokens = await service();
    const { token } = await tokens.issue({ userId: USER, sessionId: SESSION, ttlSeconds: 60, now: issuedAt });
    expect((await tokens.verify(token, at(64))).userId).toBe(USER);
    const other = await service();
    const second = await other.issue({ userId: USER, sessionId: SESSION, ttlSeconds: 60, now: issuedAt });
    await expect(other.verify(second.token, at(65))).rejects.toThrow('token expired');
  });
});

describe('token service: the access token type (RFC 9068, RFC 8725 §3.11)', () => {
  const now = new Date('2025-01-01T00:00:00.000Z');

  it('types the tokens it issues at+jwt', async () => {
    const tokens = await service();
    const { token } = await tokens.issue({ userId: USER, sessionId: SESSION, ttlSeconds: 60, now });
    expect(decodeProtectedHeader(token).typ).toBe('at+jwt');
    expect((await tokens.verify(token, now)).userId).toBe(USER);
  });

  it('refuses a token of another type, or of none, signed with its own key and carrying valid claims', async () => {
    const jwk = await generateSigningJwk();
    const key = await importSigningKey(jwk);
    const tokens = createTokenService(key, ISSUER);
    const iat = Math.floor(now.getTime() / 1000);
    const claims = { sid: SESSION, sub: USER, jti: 'a-token-id', iss: ISSUER, aud: TOKEN_AUDIENCE, iat, exp: iat + 60 };
    const typed = (typ: string | undefined) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: key.kid, ...(typ === undefined ? {} : { typ }) }).sign(key.privateKey);
    expect((await tokens.verify(await typed('at+jwt'), now)).sessionId).toBe(SESSION);
    expect((await tokens.verify(await typed('application/at+jwt'), now)).sessionId).toBe(SESSION);
    for (const typ of ['JWT', 'id_token+jwt', 'logout+jwt', undefined]) {
      await expect(tokens.verify(await typed(typ), now), String(typ)).rejects.toThrow(
        'token type not accepted: an access token says typ at+jwt',
      );
    }
  });
});
