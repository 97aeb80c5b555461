import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTokenService,
  generateSigningJwk,
  importSigningKey,
  loadOrCreateEmbeddedSigningKey,
  readEmbeddedPreviousKeys,
} from '../../src/auth/tokens.js';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

const run = promisify(execFile);

const [target] = databaseTargets();
if (!target) throw new Error('no database target');

describe('signing-key rotation over HTTP', () => {
  let h: HttpHarness;
  let oldJwk: jose.JWK;
  let newJwk: jose.JWK;

  beforeAll(async () => {
    oldJwk = await generateSigningJwk();
    newJwk = await generateSigningJwk();
    // The second phase of a rotation: the new key signs, the old one (given whole, private part and all) still verifies.
    h = await openHttpApp(target, {
      env: { TOKEN_SIGNING_KEY: JSON.stringify(newJwk), TOKEN_SIGNING_KEYS_PREVIOUS: JSON.stringify([oldJwk]) },
    });
  });

  afterAll(async () => {
    await h.close();
  });

  it('publishes the active and the previous key in the JWKS, without any private part', async () => {
    const response = await h.app.inject({ method: 'GET', url: '/api/auth/.well-known/jwks.json' });
    expect(response.statusCode).toBe(200);
    const { keys } = response.json<{ keys: Record<string, unknown>[] }>();
    expect(keys.map((k) => k.kid)).toEqual([newJwk.kid, oldJwk.kid]);
    for (const key of keys) expect(Object.keys(key).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
    expect(response.body).not.toContain(String(oldJwk.d));
    expect(response.body).not.toContain(String(newJwk.d));
  });

  it('signs new tokens with TOKEN_SIGNING_KEY and still accepts a token the previous key signed', async () => {
    expect(jose.decodeProtectedHeader(h.adminToken).kid).toBe(newJwk.kid);
    const me = (await h.inject({ method: 'GET', url: '/api/auth/me' })).json<{ id: string; sessionId: string }>();
    // A token the old key issued for the same session before the rotation.
    const before = createTokenService(await importSigningKey(oldJwk), h.services.config.BASE_URL);
    const old = await before.issue({ userId: me.id, sessionId: me.sessionId, ttlSeconds: 600, now: new Date() });
    const response = await h.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${old.token}` } });
    expect(response.statusCode).toBe(200);
    expect(response.json<{ id: string }>().id).toBe(me.id);
  });

  it('refuses a bad TOKEN_SIGNING_KEYS_PREVIOUS at start, naming it', async () => {
    await expect(openHttpApp(target, { env: { TOKEN_SIGNING_KEYS_PREVIOUS: '{"kty":"OKP"}' } })).rejects.toThrow(
      'TOKEN_SIGNING_KEYS_PREVIOUS',
    );
    await expect(openHttpApp(target, { env: { TOKEN_SIGNING_KEYS_PREVIOUS: '[{"kty":"RSA","n":"x","e":"AQAB"}]' } })).rejects.toThrow(
      'TOKEN_SIGNING_KEYS_PREVIOUS must hold Ed25519 JWKs',
    );
  });
});

describe('npm run signing-key (embedded mode)', () => {
  it('rotates the key kept in DATA_DIR and lists both', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'infraledger-cli-keys-'));
    try {
      const { key: first } = await loadOrCreateEmbeddedSigningKey(dataDir);
      const cli = (args: string[]) =>
        run('npx', ['tsx', 'src/cli/signing-key.ts', ...args], {
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir },
        });
      const rotated = await cli(['rotate']);
      const { key: active } = await loadOrCreateEmbeddedSigningKey(dataDir);
      expect(rotated.stdout).toContain(`rotated: ${first.kid} → ${active.kid}`);
      expect((await readEmbeddedPreviousKeys(dataDir)).map((k) => k.kid)).toEqual([first.kid]);
      const listed = await cli(['list']);
      expect(listed.stdout).toContain(`signing: ${active.kid}`);
      expect(listed.stdout).toContain(`verifying: ${first.kid}`);
      const given = JSON.stringify(await generateSigningJwk());
      const refused = await run('npx', ['tsx', 'src/cli/signing-key.ts', 'rotate'], {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir, TOKEN_SIGNING_KEY: given },
      }).then(
        () => undefined,
        (error: unknown) => error as { code: number; stderr: string },
      );
      expect(refused?.code).toBe(2);
      expect(refused?.stderr).toContain('TOKEN_SIGNING_KEY is set');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
