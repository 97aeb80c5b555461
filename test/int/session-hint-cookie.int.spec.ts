import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { openHttpApp, type HttpHarness } from '../support/http-app.js';

const cookies = (response: LightMyRequestResponse): string[] => [response.headers['set-cookie'] ?? []].flat();

for (const target of databaseTargets()) {
  describe(`the session hint cookie beside the refresh cookie, on ${target.name}`, () => {
    let h: HttpHarness;
    const call = (method: 'POST', url: string, cookie?: string) => h.app.inject({ method, url, headers: cookie ? { cookie } : {} });

    beforeAll(async () => {
      h = await openHttpApp(target);
      const guest = await h.inject({
        method: 'POST',
        url: '/api/auth_providers',
        payload: { name: 'Guest', type: 'guest', configuration: { role: 'default' } },
      });
      expect(guest.statusCode, guest.body).toBe(201);
    });
    afterAll(async () => h.close());

    it('is set with every refresh cookie: readable by the UI, holding nothing but 1', async () => {
      const login = await call('POST', '/api/auth/guest/login');
      expect(login.statusCode, login.body).toBe(200);
      const [refresh, hint] = cookies(login);
      expect(refresh).toMatch(/^il_refresh=[0-9a-f-]{36}\.[A-Za-z0-9_-]+; Path=\/api\/auth; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
      expect(hint).toMatch(/^il_session=1; Path=\/; SameSite=Strict; Max-Age=\d+$/);
      expect(hint).not.toContain('HttpOnly');
      // Both live as long as the session.
      expect(/Max-Age=(\d+)/.exec(hint ?? '')?.[1]).toBe(/Max-Age=(\d+)/.exec(refresh ?? '')?.[1]);

      const refreshed = await call('POST', '/api/auth/refresh', (refresh ?? '').split(';')[0]);
      expect(refreshed.statusCode, refreshed.body).toBe(200);
      expect(cookies(refreshed)[1]).toMatch(/^il_session=1;/);

      const logout = await call('POST', '/api/auth/logout', cookies(refreshed)[0]?.split(';')[0]);
      expect(logout.statusCode).toBe(204);
      expect(cookies(logout)).toEqual([
        expect.stringMatching(/^il_refresh=; .*Max-Age=0$/),
        'il_session=; Path=/; SameSite=Strict; Max-Age=0',
      ]);
    });

    it('is cleared by a refresh without a refresh cookie (a hint left behind)', async () => {
      const refused = await call('POST', '/api/auth/refresh', 'il_session=1');
      expect(refused.statusCode).toBe(401);
      expect(cookies(refused)).toContain('il_session=; Path=/; SameSite=Strict; Max-Age=0');
    });
  });
}
