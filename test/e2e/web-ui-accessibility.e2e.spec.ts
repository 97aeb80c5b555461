import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, describeFindings, seriousOrCritical } from '../support/axe.js';
import { openBrowser, type BrowserSession } from '../support/browser.js';
import { openWebUi, type ServiceRest, type WebUiHarness } from '../support/web-ui.js';

const ADMIN_PASSWORD = 'e2e-a11y-admin-password';

/** The catalog's react-admin resources and the page each list row opens. */
const CATALOG = [
  'resources',
  'templates',
  'source_codes',
  'source_code_versions',
  'executors',
  'storages',
  'integrations',
  'secrets',
  'workspaces',
  'teams',
  'webhooks',
] as const;

describe('accessibility of every page of the web UI (axe-core in Debian Chromium)', () => {
  let ui: WebUiHarness;
  let session: BrowserSession;
  let base: string;
  let page: Page;
  const ids: Record<string, string> = {};

  /** The serious and critical findings of axe on the page as it is now, and a missing page heading. */
  async function audit() {
    const violations = await axeViolations(page);
    // A page without a main heading is moderate in axe, but every page has one here.
    return [...seriousOrCritical(violations), ...violations.filter((v) => v.id === 'page-has-heading-one')];
  }

  /**
   * Opens a page and waits until react-admin has drawn it (the network quiet, no progress bar). Inside
   * the signed-in app it navigates as a link does (the router's history), so the bundle is not loaded
   * and parsed again for every page; what axe sees is the page as a user reaches it.
   */
  async function visit(url: string): Promise<void> {
    const here = new URL(page.url());
    if (here.origin === new URL(base).origin && here.pathname !== '/login') {
      await page.evaluate(`window.history.pushState({}, '', ${JSON.stringify(url)}); window.dispatchEvent(new PopStateEvent('popstate'))`);
    } else {
      await page.goto(`${base}${url}`);
    }
    await session.settled();
    await page
      .locator('[role="progressbar"]')
      .first()
      .waitFor({ state: 'detached' })
      .catch(() => undefined);
    await page.locator('main, [role="main"], form').first().waitFor();
  }

  /** One of everything, so every show and edit page has something to show. */
  async function fillCatalog({ asAdmin, asApprover, base: origin }: ServiceRest): Promise<void> {
    const create = async (plural: string, body: Record<string, unknown>): Promise<string> =>
      (ids[plural] = (await asAdmin<{ id: string }>('POST', `/api/${plural}`, body)).id);
    // A team owns the secret below, so its pages show an owner, its permissions and a grant.
    const team = await create('teams', { name: 'Payments', groupReferences: ['group:default/payments'] });
    const cloud = await create('integrations', {
      name: 'Prod AWS',
      integrationType: 'cloud',
      integrationProvider: 'aws',
      configuration: { awsAccessKeyId: 'AKIAEXAMPLE', awsSecretAccessKey: 'aws-secret', awsAccount: '123456789012' },
    });
    const git = await asAdmin<{ id: string }>('POST', '/api/integrations', {
      name: 'GitHub',
      integrationType: 'git',
      integrationProvider: 'github',
      configuration: { token: 'ghp_example' },
    });
    const secret = await create('secrets', {
      name: 'db-password',
      secretProvider: 'custom',
      ownerId: team,
      configuration: { secrets: [{ name: 'password', value: 'hunter2' }] },
    });
    await asAdmin('PUT', `/api/secrets/${secret}/grants`, { subjectType: 'team', subjectId: team, level: 'admin' });
    await create('workspaces', {
      name: 'Platform',
      workspaceProvider: 'github',
      integrationId: git.id,
      configuration: { url: 'https://github.com/example/platform' },
    });
    const sourceCode = await create('source_codes', {
      sourceCodeUrl: 'https://git.example.test/platform/web-app.git',
      sourceCodeProvider: 'git_public',
    });
    const storage = await create('storages', {
      name: 'tf-state',
      storageProvider: 'aws',
      integrationId: cloud,
      configuration: { awsBucketName: 'tf-state', awsRegion: 'eu-west-1' },
    });
    const executor = await create('executors', {
      name: 'EU runner',
      sourceCodeId: sourceCode,
      storageId: storage,
      sourceCodeBranch: 'main',
    });
    const template = await create('templates', {
      name: 'Web app',
      template: 'web_app',
      description: 'Static site behind a CDN',
      executorIds: [executor],
    });
    const version = await create('source_code_versions', {
      templateId: template,
      sourceCodeId: sourceCode,
      sourceCodeVersion: 'v1.0.0',
      sourceCodeFolder: 'modules/web-app',
      lifecycleState: 'active',
    });
    const resource = await create('resources', { name: 'orders-site', templateId: template, sourceCodeVersionId: version });
    await asApprover('POST', `/api/resources/${resource}/actions/approve`, { reason: 'fits the budget' });
    await create('auth_providers', {
      name: 'GitHub sign-in',
      type: 'github',
      configuration: { clientId: 'Iv1.0123456789abcdef', clientSecret: 'secret-value', redirectUrl: `${origin}/api/auth/github/callback` },
    });
    await create('users', { kind: 'service_account', identifier: 'ci-bot', password: 'ci-bot-password-long', roles: ['infra'] });
    await create('webhooks', {
      name: 'CI on approvals',
      url: 'https://ci.example.com/hooks/infraledger',
      entityKinds: ['resource'],
      eventTypes: ['ResourceApproved'],
      secret: 'a-webhook-signing-secret-of-32-chars-or-more',
    });
    await asAdmin('POST', '/api/resources', { name: 'pending-site', templateId: template, sourceCodeVersionId: version });
  }

  beforeAll(async () => {
    ui = await openWebUi(ADMIN_PASSWORD, fillCatalog);
    ({ session, base, page } = ui);
  });

  afterAll(async () => {
    // Undefined when beforeAll failed half-way; the failure itself is reported there.
    await (ui as WebUiHarness | undefined)?.close();
  });

  it('has no serious or critical finding on the sign-in page, and logs no error there', async () => {
    await visit('/login');
    await page.getByRole('heading', { name: 'Service account' }).waitFor();
    const found = await audit();
    expect(found, describeFindings('/login', found)).toEqual([]);
    expect(session.pageErrors).toEqual([]);
  });

  it('signs in without a console error', async () => {
    await page.getByLabel('Identifier').fill('admin');
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: /^Welcome/ }).waitFor();
    await session.settled();
    expect(session.pageErrors).toEqual([]);
  });

  // Every route of the app (web/src/App.tsx), `:id` standing for the entity created above.
  const pages = [
    '/',
    '/approvals',
    ...CATALOG.flatMap((plural) => [`/${plural}`, `/${plural}/create`, `/${plural}/:id/show`, `/${plural}/:id`]),
    '/auth_providers',
    '/auth_providers/create',
    '/auth_providers/:id',
    '/users',
    '/users/create',
    '/users/:id',
    '/audit_log',
    '/personal_access_tokens',
  ];

  for (const route of pages) {
    it(`has no serious or critical finding on ${route} (as a super user sees it)`, async () => {
      const url = route.replace(':id', ids[route.split('/')[1] ?? ''] ?? '');
      await visit(url);
      const found = await audit();
      expect(found, describeFindings(url, found)).toEqual([]);
      expect(session.pageErrors).toEqual([]);
    });
  }

  it('covered every page the app routes to, and never left 127.0.0.1', () => {
    const app = readFileSync('web/src/App.tsx', 'utf8');
    const routed = ['/', ...[...app.matchAll(/<Route\s+path="([^"]+)"/g)].map((m) => m[1] ?? '')];
    for (const [, name = '', views = ''] of app.matchAll(/<Resource\s+name="([a-z_]+)"([^>]*)\/>/g)) {
      if (/\slist=/.test(views)) routed.push(`/${name}`);
      if (/\screate=/.test(views)) routed.push(`/${name}/create`);
      if (/\sshow=/.test(views)) routed.push(`/${name}/:id/show`);
      if (/\sedit=/.test(views)) routed.push(`/${name}/:id`);
    }
    expect([...pages].sort()).toEqual(routed.sort());
    expect(session.externalRequests).toEqual([]);
  });

  it('logs no error through a browser session: guest sign-in, a reload on the refresh cookie, sign-out', async () => {
    await ui.asAdmin('POST', '/api/auth_providers', { name: 'Guest', type: 'guest', configuration: { role: 'default' } });
    const visitor = await openBrowser();
    try {
      const guest = visitor.page;
      guest.setDefaultTimeout(20_000);
      await guest.goto(`${base}/login`);
      await guest.getByRole('button', { name: 'Continue as guest' }).click();
      await guest.getByRole('heading', { name: /^Welcome/ }).waitFor();
      await guest.reload();
      await guest.getByRole('heading', { name: /^Welcome/ }).waitFor();
      await guest.getByRole('button', { name: 'Profile' }).click();
      await guest.getByRole('menuitem', { name: 'Logout' }).click();
      await guest.waitForURL(`${base}/login`);
      await guest.reload();
      await guest.getByRole('button', { name: 'Continue as guest' }).waitFor();
      await visitor.settled();
      expect(visitor.pageErrors).toEqual([]);
    } finally {
      await visitor.close();
    }
  });

  it('has none in the dialogs: a decision with its reason, a confirmation', async () => {
    await visit('/approvals');
    await page.getByTestId('approval-queue').getByRole('button', { name: 'Reject' }).first().click();
    await page.getByRole('dialog').getByLabel('Reason (optional)').waitFor();
    let found = await audit();
    expect(found, describeFindings('reject dialog', found)).toEqual([]);
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await visit(`/auth_providers/${ids.auth_providers ?? ''}`);
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('dialog').waitFor();
    found = await audit();
    expect(found, describeFindings('disable-provider dialog', found)).toEqual([]);
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  });
});
