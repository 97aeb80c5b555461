import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBrowser, type BrowserSession } from '../support/browser.js';
import { startService, type ServiceProcess } from '../support/service-process.js';

const ADMIN_PASSWORD = 'e2e-self-service-admin-password';

describe('the web UI for every signed-in user: access tokens and guest sign-in', () => {
  let service: ServiceProcess;
  let session: BrowserSession;
  let dataDir: string;
  let base: string;
  let page: Page;

  async function asAdmin(method: string, url: string, body?: unknown): Promise<Response> {
    const signIn = await fetch(`${base}/api/auth/service_account/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identifier: 'admin', password: ADMIN_PASSWORD }),
    });
    const { token } = (await signIn.json()) as { token: string };
    return fetch(`${base}${url}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'il-web-self-'));
    service = await startService({ DATA_DIR: dataDir, INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD });
    // The browser must use BASE_URL's origin (default http://localhost:{PORT}): sign-in endpoints compare Origin with it.
    base = service.baseUrl.replace('127.0.0.1', 'localhost');
    for (const provider of [
      { name: 'Access tokens', type: 'personal_access_token', configuration: {} },
      { name: 'Guest', type: 'guest', configuration: { role: 'default' } },
    ]) {
      const created = await asAdmin('POST', '/api/auth_providers', provider);
      expect(created.status, await created.clone().text()).toBe(201);
    }
    session = await openBrowser();
    page = session.page;
    page.setDefaultTimeout(15_000);
  });

  afterAll(async () => {
    await (session as BrowserSession | undefined)?.close();
    await (service as ServiceProcess | undefined)?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('creates a personal access token, shows its secret once, lists it and revokes it', async () => {
    await page.goto(`${base}/login`);
    await page.getByLabel('Identifier').fill('admin');
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: /^Welcome/ }).waitFor();

    await page.goto(`${base}/personal_access_tokens`);
    await page.getByLabel('Name').fill('laptop');
    await page.getByLabel('Expires in (days)').fill('7');
    await page.getByRole('button', { name: 'Create token' }).click();
    const dialog = page.getByRole('dialog', { name: 'Token “laptop” created' });
    await dialog.waitFor();
    const secret = (await dialog.getByTestId('new-token').textContent())?.trim() ?? '';
    expect(secret).toMatch(/^ilpat_/);
    await dialog.getByRole('button', { name: 'Copy token' }).waitFor();
    // The secret works as a bearer token.
    const me = await fetch(`${base}/api/auth/me`, { headers: { authorization: `Bearer ${secret}` } });
    expect(me.status).toBe(200);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'detached' });

    // Listed with its state and expiry; the secret is nowhere on the page any more.
    const row = page.getByTestId('tokens').locator('tbody tr').filter({ hasText: 'laptop' });
    await row.locator('[data-value="active"]').waitFor();
    await expect(page.content()).resolves.not.toContain(secret);

    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog', { name: 'Revoke laptop?' }).getByRole('button', { name: 'Confirm' }).click();
    await row.locator('[data-value="revoked"]').waitFor();
    const after = await fetch(`${base}/api/auth/me`, { headers: { authorization: `Bearer ${secret}` } });
    expect(after.status).toBe(401);
    await session.screenshot('web-ui-self-service-tokens');
  });

  it('offers guest sign-in with its insecure warning, and signs in as the guest', async () => {
    await page.getByRole('button', { name: 'Profile' }).click();
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await page.waitForURL(`${base}/login`);
    await page.getByText('Insecure, for development only.').waitFor();
    await page.getByRole('button', { name: 'Continue as guest' }).click();
    await page.getByRole('heading', { name: /^Welcome/ }).waitFor();
    await expect(page.getByTestId('role').allTextContents()).resolves.toEqual(['default']);
    await session.screenshot('web-ui-self-service-guest');
    expect(session.externalRequests).toEqual([]);
  });
});
