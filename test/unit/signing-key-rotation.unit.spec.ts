import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as jose from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pruneEmbeddedPreviousKeys, rotateEmbeddedSigningKey } from '../../src/auth/signing-key-rotation.js';
import {
  createTokenService,
  EMBEDDED_PREVIOUS_KEYS_FILE,
  generateSigningJwk,
  importSigningKey,
  loadOrCreateEmbeddedSigningKey,
  readEmbeddedPreviousKeys,
  verificationKey,
} from '../../src/auth/tokens.js';

const ISSUER = 'http://localhost:8080';
const NOW = new Date('2026-01-01T00:00:00Z');
const PRIVATE = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];

const noPrivateParts = (keys: readonly jose.JWK[]): void => {
  for (const key of keys) for (const member of PRIVATE) expect(key).not.toHaveProperty(member);
};

describe('signing keys: TOKEN_SIGNING_KEYS_PREVIOUS', () => {
  it('given tokens of the old key, when a new key signs and the old one is previous, then both verify and the JWKS has both, public parts only', async () => {
    const oldJwk = await generateSigningJwk();
    const newJwk = await generateSigningJwk();
    const before = createTokenService(await importSigningKey(oldJwk), ISSUER);
    const oldToken = await before.issue({ userId: 'u1', sessionId: 's1', ttlSeconds: 600, now: NOW });
    // The previous key given whole (private JWK): only its public part may be kept.
    const after = createTokenService(await importSigningKey(newJwk), ISSUER, [await verificationKey(oldJwk)]);
    const newToken = await after.issue({ userId: 'u1', sessionId: 's2', ttlSeconds: 600, now: NOW });
    expect(jose.decodeProtectedHeader(newToken.token).kid).toBe(newJwk.kid);
    expect((await after.verify(oldToken.token, NOW)).sessionId).toBe('s1');
    expect((await after.verify(newToken.token, NOW)).sessionId).toBe('s2');
    expect(after.jwks.keys.map((k) => k.kid)).toEqual([newJwk.kid, oldJwk.kid]);
    noPrivateParts(after.jwks.keys);
    expect(JSON.stringify(after.jwks)).not.toContain(String(oldJwk.d));
  });

  it('refuses a token of a key that is neither active nor previous', async () => {
    const stranger = createTokenService(await importSigningKey(await generateSigningJwk()), ISSUER);
    const token = await stranger.issue({ userId: 'u1', sessionId: 's1', ttlSeconds: 600, now: NOW });
    const service = createTokenService(await importSigningKey(await generateSigningJwk()), ISSUER, [
      await verificationKey(await generateSigningJwk()),
    ]);
    await expect(service.verify(token.token, NOW)).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
      message: 'token signed with an unknown key',
    });
  });

  it('refuses a previous key that is not an Ed25519 JWK, naming the setting', async () => {
    await expect(verificationKey({ kty: 'oct', k: 'c2VjcmV0' })).rejects.toThrow('TOKEN_SIGNING_KEYS_PREVIOUS must hold Ed25519 JWKs');
    await expect(verificationKey({ kty: 'OKP', crv: 'Ed25519', x: '!!' })).rejects.toThrow();
  });
});

describe('signing keys: rotation of the embedded key in DATA_DIR', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'infraledger-keys-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('given a token of the embedded key, when rotated, then the new key signs, the old token verifies, and only public parts are written for the old key', async () => {
    const { key: first } = await loadOrCreateEmbeddedSigningKey(dataDir);
    const oldToken = await createTokenService(first, ISSUER).issue({ userId: 'u1', sessionId: 's1', ttlSeconds: 600, now: NOW });

    const rotation = await rotateEmbeddedSigningKey(dataDir, NOW);
    expect(rotation.retiredKid).toBe(first.kid);
    expect(rotation.activeKid).not.toBe(first.kid);

    const { key: active } = await loadOrCreateEmbeddedSigningKey(dataDir);
    expect(active.kid).toBe(rotation.activeKid);
    const previous = await readEmbeddedPreviousKeys(dataDir);
    expect(previous.map((k) => k.kid)).toEqual([first.kid]);
    noPrivateParts(previous);
    expect(await readFile(path.join(dataDir, EMBEDDED_PREVIOUS_KEYS_FILE), 'utf8')).not.toMatch(/"d"/);

    const service = createTokenService(active, ISSUER, await Promise.all(previous.map((k) => verificationKey(k))));
    expect((await service.verify(oldToken.token, NOW)).sessionId).toBe('s1');
    const fresh = await service.issue({ userId: 'u1', sessionId: 's2', ttlSeconds: 600, now: NOW });
    expect(jose.decodeProtectedHeader(fresh.token).kid).toBe(active.kid);
    expect(service.jwks.keys.map((k) => k.kid)).toEqual([active.kid, first.kid]);
  });

  it('prunes previous keys retired longer ago than asked, keeping the recent ones', async () => {
    const first = await rotateEmbeddedSigningKey(dataDir, new Date('2026-01-01T00:00:00Z'));
    const second = await rotateEmbeddedSigningKey(dataDir, new Date('2026-01-02T00:00:00Z'));
    const pruned = await pruneEmbeddedPreviousKeys(dataDir, 24, new Date('2026-01-02T12:00:00Z'));
    expect(pruned).toEqual({ dropped: [first.retiredKid], kept: [second.retiredKid] });
    expect((await readEmbeddedPreviousKeys(dataDir)).map((k) => k.kid)).toEqual([second.retiredKid]);
  });
});
