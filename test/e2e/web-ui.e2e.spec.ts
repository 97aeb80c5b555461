import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserSession } from '../support/browser.js';
import { openWebUi, saveForReadme, type WebUiHarness } from '../support/web-ui.js';

const ADMIN_PASSWORD = 'e2e-web-ui-admin-password';
const INFRA = { identifier: 'platform-bot', password: 'platform-bot-password-1', displayName: 'Platform Bot' };
const DEVELOPER = { identifier: 'dev-bot', password: 'dev-bot-password-12', displayName: 'Dev Bot' };
const SECRET = 'github-client-secret-value';

describe('the web UI, from sign-in to an approved resource request', () => {
  let ui: WebUiHarness;
  let session: BrowserSession;
  let base: string;
  let page: Page;
  let resourceUrl = '';
  const asAdmin = <T>(method: string, url: string, body?: unknown): Promise<T> => ui.asAdmin<T>(method, url, body);
  const signIn = (identifier: string, password: string): Promise<void> => ui.signIn(identifier, password);
  const signOut = (): Promise<void> => ui.signOut();
  const pick = (label: string, search: string, option: string): Promise<void> => ui.pick(label, search, option);

  beforeAll(async () => {
    ui = await openWebUi(ADMIN_PASSWORD, async (rest) => {
      const template = await rest.asAdmin<{ id: string }>('POST', '/api/templates', {
        name: 'Web app',
        template: 'web_app',
        description: 'Static site behind a CDN',
        cloudResourceTypes: ['aws_s3_bucket'],
      });
      const sourceCode = await rest.asAdmin<{ id: string }>('POST', '/api/source_codes', {
        sourceCodeUrl: 'https://git.example.test/platform/web-app.git',
        sourceCodeProvider: 'git_public',
      });
      await rest.asAdmin('POST', '/api/source_code_versions', {
        templateId: template.id,
        sourceCodeId: sourceCode.id,
        sourceCodeVersion: 'v1.0.0',
        sourceCodeFolder: 'modules/web-app',
        lifecycleState: 'active',
      });
    });
    ({ session, base, page } = ui);
    page.setDefaultTimeout(15_000);
  });

  afterAll(async () => {
    // Undefined when beforeAll failed half-way; the failure itself is reported there.
    await (ui as WebUiHarness | undefined)?.close();
  });

  it('serves the sign-in page and signs the administrator in with the bootstrap password', async () => {
    await page.goto(`${base}/`);
    await page.waitForURL(`${base}/login`);
    await page.getByRole('heading', { name: 'Service account' }).waitFor();
    await signIn('admin', ADMIN_PASSWORD);
    await expect(page.getByTestId('role').allTextContents()).resolves.toEqual(['super']);
    // The session survives a reload (service accounts keep their token in this tab's storage).
    await page.reload();
    await page.getByRole('heading', { name: 'Welcome, Administrator' }).waitFor();
    await session.screenshot('web-ui-1-admin-signed-in');
  });

  it('creates a GitHub provider whose secret is masked after save, with the callback URL to register', async () => {
    await page.getByRole('menuitem', { name: 'Auth providers' }).click();
    await page.getByTestId('auth-providers').waitFor();
    await page.getByRole('link', { name: 'Create' }).click();
    await page.getByRole('combobox', { name: 'Type' }).click();
    await page.getByRole('option', { name: 'GitHub' }).click();
    await page.getByLabel('Name').fill('GitHub');
    await page.getByLabel('Client ID').fill('Iv1.0123456789abcdef');
    await page.getByLabel('Client secret').fill(SECRET);
    await page.getByLabel('Redirect URL').fill('not a url');
    await page.getByLabel('Allowed e-mail domain').fill('example.com');
    await page.getByRole('button', { name: 'Save' }).click();
    // The service's 400 names configuration.redirectUrl: its message shows under that input.
    await page.getByText('must be an absolute http(s) URL').waitFor();
    await expect(page.getByLabel('Redirect URL').getAttribute('aria-invalid')).resolves.toBe('true');
    // Said once, under its input, in the service's words; the notification only says that a field needs a change.
    await page.getByText('Not saved: one field needs a change.', { exact: true }).waitFor();
    await expect(page.getByText('must be an absolute http(s) URL').count()).resolves.toBe(1);
    await expect(page.getByText(/invalid body|configuration\.redirectUrl/).count()).resolves.toBe(0);
    await session.screenshot('web-ui-2a-provider-field-error');
    await page.getByLabel('Redirect URL').fill(`${base}/api/auth/github/callback`);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/auth_providers\/[0-9a-f-]{36}$/);
    // The edit page (its toolbar has Disable) replaces the create form once it has the saved record.
    await page.getByRole('button', { name: 'Disable' }).waitFor();
    await expect.poll(() => page.getByLabel('Client secret').inputValue()).toBe('********');
    await expect(page.getByTestId('callback-url').textContent()).resolves.toContain(`${base}/api/auth/github/callback`);
    // Without the "created" notification, for the README.
    await page.reload();
    await page.getByRole('button', { name: 'Disable' }).waitFor();
    await expect.poll(() => page.getByLabel('Client secret').inputValue()).toBe('********');
    await saveForReadme(session, 'provider-form');

    // What a signed-out visitor now sees: a GitHub button beside the service-account form.
    const visitor = await session.browser.newContext({ viewport: { width: 1366, height: 900 } });
    const visitorPage = await visitor.newPage();
    await visitor.route('**/*', (route) => (route.request().url().startsWith(base) ? route.continue() : route.abort('blockedbyclient')));
    await visitorPage.goto(`${base}/login?error=domain_not_allowed`);
    await visitorPage.getByRole('link', { name: 'Sign in with GitHub' }).waitFor();
    await expect(visitorPage.getByRole('link', { name: 'Sign in with GitHub' }).getAttribute('href')).resolves.toBe(
      '/api/auth/github/login',
    );
    await expect(visitorPage.getByTestId('login-error').textContent()).resolves.toContain('e-mail domain is not allowed');
    await visitorPage.goto(`${base}/login`);
    await visitorPage.getByRole('link', { name: 'Sign in with GitHub' }).waitFor();
    // The visitor's own page (no session of the test's): saved as the session's screenshots are.
    const visitorShot = async (name: string): Promise<string> => {
      const file = path.resolve(`test-results/screenshots/${name}.png`);
      await mkdir(path.dirname(file), { recursive: true });
      await visitorPage.screenshot({ path: file });
      return file;
    };
    await saveForReadme({ screenshot: visitorShot }, 'sign-in');
    await visitor.close();
    await session.screenshot('web-ui-2-provider-created');
  });

  it('disables the provider, after a confirmation', async () => {
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('dialog', { name: 'Disable GitHub?' }).getByRole('button', { name: 'Disable' }).click();
    await page.getByText('Provider GitHub disabled').waitFor();
    await page.getByRole('button', { name: 'Enable' }).waitFor();
    const providers = (await (await fetch(`${base}/api/auth/providers`)).json()) as { type: string }[];
    expect(providers.map((p) => p.type)).not.toContain('github');
    await session.screenshot('web-ui-3-provider-disabled');
  });

  it('creates an infra and a default service account', async () => {
    for (const [account, role] of [
      [INFRA, 'infra'],
      [DEVELOPER, 'default'],
    ] as const) {
      await page.goto(`${base}/users/create`);
      await page.getByLabel('Identifier').fill(account.identifier);
      await page.getByRole('textbox', { name: 'Password' }).fill(account.password);
      await page.getByLabel('Display name').fill(account.displayName);
      if (role !== 'default') {
        await page.getByRole('checkbox', { name: 'default' }).uncheck();
        await page.getByRole('checkbox', { name: role }).check();
      }
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(`${base}/users`);
      await page.getByRole('cell', { name: account.identifier, exact: true }).waitFor();
    }
    await session.screenshot('web-ui-4-service-accounts');
  });

  it('lets the default-role account request a resource, which waits for approval', async () => {
    await signOut();
    await signIn(DEVELOPER.identifier, DEVELOPER.password);
    // Role default sees no administration.
    await expect(page.getByRole('menuitem', { name: 'Auth providers' }).count()).resolves.toBe(0);
    await page.getByRole('menuitem', { name: 'Resources' }).click();
    await page.getByRole('link', { name: 'Create' }).click();
    await page.getByLabel('Name').first().fill('orders-site');
    await pick('Template', 'Web', 'Web app');
    await pick('Source code version', 'modules', 'modules/web-app:v1.0.0');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/resources\/[0-9a-f-]{36}\/show$/);
    resourceUrl = page.url();
    await expect(page.getByTestId('status').locator('[data-value]').getAttribute('data-value')).resolves.toBe('approval_pending');
    // The requester may not approve their own request: only delete (withdraw) is offered.
    await expect(page.getByRole('button', { name: 'Approve' }).count()).resolves.toBe(0);
    await page.getByTestId('history').locator('[data-verb="created"]').waitFor();
    await session.screenshot('web-ui-5-resource-requested');
  });

  it('lets the infra account approve it', async () => {
    await signOut();
    await signIn(INFRA.identifier, INFRA.password);
    await page.goto(resourceUrl);
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('dialog', { name: 'Approve orders-site?' }).getByRole('button', { name: 'Approve' }).click();
    await page.getByTestId('status').locator('[data-value="ready"]').waitFor();
    await page.getByRole('button', { name: 'Execute' }).waitFor();
    await page.getByTestId('history').locator('[data-verb="approved"]').waitFor();
    // infra may not read users, yet sees who requested it by name (looked up through GraphQL).
    await page.getByTestId('history').getByText(DEVELOPER.displayName).first().waitFor();
    // Without the notification, for the README.
    await page.reload();
    await page.getByRole('button', { name: 'Execute' }).waitFor();
    await page.getByTestId('history').locator('[data-verb="approved"]').waitFor();
    await saveForReadme(session, 'resource-page');
    // Execute touches real infrastructure: it asks first, and Cancel queues nothing.
    await page.getByRole('button', { name: 'Execute' }).click();
    const confirm = page.getByRole('dialog', { name: 'Execute orders-site?' });
    await confirm.getByText('Queue a run now?').waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    await expect(page.getByTestId('status').locator('[data-value]').getAttribute('data-value')).resolves.toBe('ready');
  });

  it('keeps the resource page and the resources list live while a runner acts through the API', async () => {
    // Still the infra account, on the approved resource; nothing below reloads the page.
    await page.goto(resourceUrl);
    const status = (value: string) => page.getByTestId('status').locator(`[data-value="${value}"]`);
    await status('ready').waitFor();
    const id = resourceUrl.split('/').at(-2) ?? '';
    await asAdmin('POST', `/api/resources/${id}/actions/execute`, {});
    await status('queued').waitFor();
    await asAdmin('POST', `/api/resources/${id}/actions/start`, {});
    await status('in_progress').waitFor();
    await asAdmin('POST', `/api/resources/${id}/actions/succeed`, { outputs: { url: 'https://orders.example.test' } });
    await status('done').waitFor();
    await page.getByTestId('state').locator('[data-value="provisioned"]').waitFor();

    await page.getByRole('menuitem', { name: 'Resources' }).click();
    await page.getByRole('cell', { name: 'orders-site', exact: true }).waitFor();
    const template = (await asAdmin<{ id: string }[]>('GET', '/api/templates'))[0]?.id;
    const version = (await asAdmin<{ id: string }[]>('GET', '/api/source_code_versions'))[0]?.id;
    await asAdmin('POST', '/api/resources', { name: 'live-site', templateId: template, sourceCodeVersionId: version });
    await page.getByRole('cell', { name: 'live-site', exact: true }).waitFor();
  });

  it('shows every step with its actor in the audit log, and never left 127.0.0.1', async () => {
    await signOut();
    await signIn('admin', ADMIN_PASSWORD);
    await page.getByRole('menuitem', { name: 'Audit log' }).click();
    await page.getByTestId('audit-log').waitFor();
    // Sign-ins and sessions add many entries: one page of 100 holds the whole walk-through.
    await page.goto(`${base}/audit_log?perPage=100`);
    const log = page.getByTestId('audit-log');
    await log.waitFor();
    // Each row reads: who, did what (a verb), to which entity (by name).
    const row = (verb: string, entity: string, actor: string) =>
      log
        .locator('tbody tr')
        .filter({ has: page.locator(`[data-verb="${verb}"]`) })
        .filter({ hasText: entity })
        .filter({ hasText: actor });
    for (const [verb, entity, actor] of [
      ['created', 'auth provider GitHub', 'Administrator'],
      ['disabled', 'auth provider GitHub', 'Administrator'],
      ['created', 'resource orders-site', DEVELOPER.displayName],
      ['approved', 'resource orders-site', INFRA.displayName],
    ] as const) {
      await row(verb, entity, actor).first().waitFor();
    }
    await expect(row('created', 'user', 'Administrator').count()).resolves.toBeGreaterThanOrEqual(2);
    // Secrets are redacted in the changes the audit log shows.
    await expect(log.textContent()).resolves.not.toContain(SECRET);
    await session.screenshot('web-ui-7-audit-log');
    expect(session.externalRequests).toEqual([]);
  });
});
