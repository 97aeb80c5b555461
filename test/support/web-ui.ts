import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { openBrowser, type BrowserSession } from './browser.js';
import { startService, type ServiceProcess } from './service-process.js';

/** The built service on a fresh DATA_DIR, reached over REST. */
export interface ServiceRest {
  readonly service: ServiceProcess;
  /** BASE_URL's origin (http://localhost:{port}): sign-in endpoints compare Origin with it. */
  readonly base: string;
  /** A bearer token for a service account, through the REST sign-in. */
  readonly tokenOf: (identifier: string, password: string) => Promise<string>;
  /** A REST call with `token`; fails the test unless it answers 2xx. */
  readonly call: <T>(token: string, method: string, url: string, body?: unknown) => Promise<T>;
  /** A REST call as the bootstrap `admin`. */
  readonly asAdmin: <T>(method: string, url: string, body?: unknown) => Promise<T>;
  /**
   * A REST call as `approver`, an `infra` service account made on first use: nobody approves their
   * own request (docs/contract.md §6), so the admin's requests are approved by it.
   */
  readonly asApprover: <T>(method: string, url: string, body?: unknown) => Promise<T>;
}

/** That service with a browser on it, and what browser tests do there. */
export interface WebUiHarness extends ServiceRest {
  readonly session: BrowserSession;
  readonly page: Page;
  /** Signs in through the login page's service-account form, up to the home page. */
  readonly signIn: (identifier: string, password: string) => Promise<void>;
  /** Signs out through the user menu, back to the login page. */
  readonly signOut: () => Promise<void>;
  /** Picks `option` in a react-admin AutocompleteInput (reference pickers), typing `search` first. */
  readonly pick: (label: string, search: string, option: string) => Promise<void>;
  readonly close: () => Promise<void>;
}

/**
 * Starts the built service (`INITIAL_ADMIN_PASSWORD` = `adminPassword`) and a headless Chromium.
 * `prepare` runs before the browser opens (REST set-up through the harness).
 */
export async function openWebUi(adminPassword: string, prepare?: (rest: ServiceRest) => Promise<void>): Promise<WebUiHarness> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'il-web-'));
  const service = await startService({ DATA_DIR: dataDir, INITIAL_ADMIN_PASSWORD: adminPassword });
  const base = service.baseUrl.replace('127.0.0.1', 'localhost');
  let session: BrowserSession | undefined;
  const close = async (): Promise<void> => {
    await session?.close();
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const tokenOf = async (identifier: string, password: string): Promise<string> => {
      const response = await fetch(`${base}/api/auth/service_account/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identifier, password }),
      });
      expect(response.status, await response.clone().text()).toBe(200);
      return ((await response.json()) as { token: string }).token;
    };
    const call = async <T>(token: string, method: string, url: string, body?: unknown): Promise<T> => {
      const response = await fetch(`${base}${url}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expect(response.status, await response.clone().text()).toBeLessThan(300);
      return (await response.json()) as T;
    };
    const asAdmin = async <T>(method: string, url: string, body?: unknown): Promise<T> =>
      call<T>(await tokenOf('admin', adminPassword), method, url, body);
    let approverToken: string | undefined;
    const asApprover = async <T>(method: string, url: string, body?: unknown): Promise<T> => {
      if (approverToken === undefined) {
        const password = 'approver-password-for-e2e';
        await asAdmin('POST', '/api/users', { kind: 'service_account', identifier: 'approver', password, roles: ['infra'] });
        approverToken = await tokenOf('approver', password);
      }
      return call<T>(approverToken, method, url, body);
    };
    const rest: ServiceRest = { service, base, tokenOf, call, asAdmin, asApprover };
    await prepare?.(rest);
    session = await openBrowser();
    const page = session.page;
    page.setDefaultTimeout(20_000);
    return {
      ...rest,
      session,
      page,
      close,
      signIn: async (identifier, password) => {
        await page.goto(`${base}/login`);
        await page.getByLabel('Identifier').fill(identifier);
        await page.getByLabel('Password').fill(password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL((url) => url.pathname !== '/login');
        // Sign-in reopens the page that asked for it (a deep link): a request refused as the previous
        // session ended sends its page along. These tests start each session at the dashboard.
        if (new URL(page.url()).pathname !== '/') await page.goto(`${base}/`);
        await page.getByRole('heading', { name: /^Welcome/ }).waitFor();
      },
      signOut: async () => {
        await page.getByRole('button', { name: 'Profile' }).click();
        await page.getByRole('menuitem', { name: 'Logout' }).click();
        await page.waitForURL(`${base}/login`);
      },
      pick: async (label, search, option) => {
        const input = page.getByRole('combobox', { name: label });
        await input.click();
        await input.fill(search);
        await page.getByRole('option', { name: option }).click();
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * A README screenshot: the test's own (test-results/screenshots), copied to docs/screenshots/<name>.png
 * only with UPDATE_README_SCREENSHOTS=1, so that a test run leaves the checkout as it found it.
 */
export async function saveForReadme(session: Pick<BrowserSession, 'screenshot'>, name: string): Promise<void> {
  const file = await session.screenshot(name);
  if (process.env.UPDATE_README_SCREENSHOTS !== '1') return;
  const dir = path.resolve('docs/screenshots');
  await mkdir(dir, { recursive: true });
  await copyFile(file, path.join(dir, `${name}.png`));
}
