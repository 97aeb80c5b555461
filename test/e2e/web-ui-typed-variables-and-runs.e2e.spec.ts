import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserSession } from '../support/browser.js';
import { openWebUi, type WebUiHarness } from '../support/web-ui.js';

const ADMIN_PASSWORD = 'e2e-typed-admin-password';
const DEVELOPER = { identifier: 'dev-typed', password: 'developer-password-typed', roles: ['default'] };
const RUNNER = { identifier: 'runner-typed', password: 'runner-password-typed-1', roles: ['infra'] };
const DB_PASSWORD = 'correct-horse-battery';

/**
 * Typed variables and runs in a real browser (docs/contract.md §2): infra declares a version's
 * variables in the structured form; a developer requests a resource through the typed request
 * form, sees the validation messages, fixes the values and saves; then, on the resource's page, the
 * run's log tails live while a runner (this test, over REST) appends lines, secrets masked.
 */
describe('the web UI: typed request forms and live run logs', () => {
  let ui: WebUiHarness;
  let session: BrowserSession;
  let base: string;
  let page: Page;
  let resourceUrl = '';
  const frames: string[] = [];
  const ADMIN = { identifier: 'admin', password: ADMIN_PASSWORD };

  const tokens = new Map<string, Promise<string>>();

  /** A REST call as `who` (signed in once: a password check takes a while by design). */
  async function call<T = unknown>(who: { identifier: string; password: string }, method: string, url: string, body?: unknown): Promise<T> {
    let token = tokens.get(who.identifier);
    if (!token) tokens.set(who.identifier, (token = ui.tokenOf(who.identifier, who.password)));
    return ui.call<T>(await token, method, url, body ?? (method === 'POST' ? {} : undefined));
  }
  const signIn = (identifier: string, password: string): Promise<void> => ui.signIn(identifier, password);
  const signOut = (): Promise<void> => ui.signOut();
  const pick = (label: string, search: string, option: string): Promise<void> => ui.pick(label, search, option);

  beforeAll(async () => {
    ui = await openWebUi(ADMIN_PASSWORD, async (rest) => {
      const admin = await rest.tokenOf(ADMIN.identifier, ADMIN.password);
      for (const account of [DEVELOPER, RUNNER]) await rest.call(admin, 'POST', '/api/users', { kind: 'service_account', ...account });
      await rest.call(admin, 'POST', '/api/templates', { name: 'Database', template: 'database' });
      await rest.call(admin, 'POST', '/api/source_codes', {
        sourceCodeUrl: 'https://github.com/acme/modules',
        sourceCodeProvider: 'git_public',
        gitTags: ['v1.0.0', 'v2.0.0'],
      });
    });
    ({ session, base, page } = ui);
    // What the live log's sockets carried, shown when a test fails.
    page.on('websocket', (socket) => {
      socket.on('framereceived', (frame) => frames.push(`< ${String(frame.payload).slice(0, 200)}`));
      socket.on('framesent', (frame) => frames.push(`> ${String(frame.payload).slice(0, 200)}`));
      socket.on('close', () => frames.push('closed'));
    });
    page.setDefaultTimeout(15_000);
  });

  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') console.log(frames.filter((frame) => !frame.includes('"changes"')).join('\n'));
    if (context.task.result?.state === 'fail')
      await session.screenshot(`typed-variables-failed-${context.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
  });

  afterAll(async () => {
    await (ui as WebUiHarness | undefined)?.close();
  });

  it('lets infra declare a version’s variables in a structured form', async () => {
    await signIn(RUNNER.identifier, RUNNER.password);
    await page.goto(`${base}/source_code_versions/create`);
    await pick('Template', 'Data', 'Database');
    await pick('Source code', 'acme', 'https://github.com/acme/modules');
    // The tag is picked from the ones the source code lists.
    await page.getByRole('combobox', { name: 'Git tag' }).click();
    await expect(page.getByRole('option').allInnerTexts()).resolves.toEqual(['v1.0.0', 'v2.0.0']);
    await page.getByRole('option', { name: 'v2.0.0' }).click();
    await page.getByLabel('Folder').fill('modules/postgres');
    const declare = async (index: number, fill: (row: ReturnType<Page['locator']>) => Promise<void>) => {
      await page.getByRole('button', { name: 'Add' }).first().click();
      await fill(page.getByTestId('variable-declarations').locator('li.RaSimpleFormIterator-line').nth(index));
    };
    await declare(0, async (row) => {
      await row.getByLabel('Name').fill('region');
      // The name has room for a name (it was once squeezed to a few pixels beside the type).
      expect((await row.getByLabel('Name').boundingBox())?.width).toBeGreaterThan(180);
      await row.getByLabel('Required').check();
      await row.getByLabel('Description').fill('Where the database runs');
      await row.getByLabel('Pattern (regex)').fill('[a-z]{2}-[a-z]+-\\d');
      await row.getByLabel('Message').fill('a region such as eu-west-1');
    });
    await declare(1, async (row) => {
      await row.getByLabel('Name').fill('size');
      await row.getByRole('combobox', { name: 'Type' }).click();
      await page.getByRole('option', { name: 'Number' }).click();
      await row.getByLabel('Default').fill('2');
      await row.getByLabel('Min').fill('1');
      await row.getByLabel('Max').fill('5');
      await row.getByLabel('Description').fill('Instances');
    });
    await declare(2, async (row) => {
      await row.getByLabel('Name').fill('zones');
      await row.getByRole('combobox', { name: 'Type' }).click();
      await page.getByRole('option', { name: 'List' }).click();
      await row.getByLabel('Description').fill('Availability zones');
    });
    await declare(3, async (row) => {
      await row.getByLabel('Name').fill('admin_password');
      await row.getByLabel('Required').check();
      await row.getByLabel('Sensitive').check();
      await row.getByLabel('Min').fill('12');
      await row.getByLabel('Description').fill('The first administrator password');
    });
    await declare(4, async (row) => {
      await row.getByLabel('Name').fill('tier');
      await row.getByRole('combobox', { name: 'Type' }).click();
      await page.getByRole('option', { name: 'Enum' }).click();
      await row.getByLabel('Values').fill('standard, premium, ');
      await row.getByLabel('Description').fill('The service tier');
    });
    await session.screenshot('typed-variables-1-declarations');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/source_code_versions\/[0-9a-f-]{36}\/show$/);
    await page.getByTestId('declared-variables').getByText('matches [a-z]{2}-[a-z]+-\\d; “a region such as eu-west-1”').waitFor();
    const [version] = await call<{ variables: unknown[] }[]>(ADMIN, 'GET', '/api/source_code_versions');
    expect(version?.variables).toEqual([
      {
        name: 'region',
        type: 'string',
        required: true,
        default: null,
        description: 'Where the database runs',
        sensitive: false,
        validation: { regex: '[a-z]{2}-[a-z]+-\\d', message: 'a region such as eu-west-1' },
      },
      {
        name: 'size',
        type: 'number',
        required: false,
        default: 2,
        description: 'Instances',
        sensitive: false,
        validation: { min: 1, max: 5 },
      },
      { name: 'zones', type: 'list', required: false, default: null, description: 'Availability zones', sensitive: false },
      {
        name: 'admin_password',
        type: 'string',
        required: true,
        default: null,
        description: 'The first administrator password',
        sensitive: true,
        validation: { min: 12 },
      },
      {
        name: 'tier',
        type: 'enum',
        required: false,
        default: null,
        description: 'The service tier',
        sensitive: false,
        validation: { values: ['standard', 'premium'] },
      },
    ]);
    await signOut();
  });

  it('lets a developer request a resource through the typed form, showing what is wrong with each value', async () => {
    await signIn(DEVELOPER.identifier, DEVELOPER.password);
    await page.goto(`${base}/resources/create`);
    await page.getByLabel('Name').first().fill('orders-db');
    await pick('Template', 'Data', 'Database');
    await pick('Source code version', 'postgres', 'modules/postgres:v2.0.0');
    const variables = page.getByTestId('typed-variables');
    // One typed input per declared variable, started at its default, with its help text.
    await expect(variables.getByLabel('size').inputValue()).resolves.toBe('2');
    await variables.getByText('Where the database runs').waitFor();
    await expect(variables.getByLabel('admin_password').getAttribute('type')).resolves.toBe('password');
    // Required variables are marked as every required input is (an asterisk in the label); optional ones are not.
    await expect(variables.locator('label', { hasText: 'region' }).textContent()).resolves.toMatch(/\*/);
    await expect(variables.locator('label', { hasText: 'size' }).textContent()).resolves.not.toMatch(/\*/);

    await variables.getByLabel('region').fill('Europe');
    await variables.getByLabel('size').fill('9');
    await variables.getByLabel('admin_password').fill('short');
    await page.getByRole('button', { name: 'Save' }).click();
    await variables.getByText('a region such as eu-west-1').waitFor();
    await variables.getByText('must be at most 5').waitFor();
    await variables.getByText('must be at least 12 characters').waitFor();
    await session.screenshot('typed-variables-2-request-refused');
    expect(page.url()).toMatch(/\/resources\/create$/);

    await variables.getByLabel('region').fill('eu-west-1');
    await variables.getByLabel('size').fill('3');
    // A list of text is typed as chips: a value, then Enter.
    const zones = variables.getByLabel('zones');
    for (const zone of ['eu-west-1a', 'eu-west-1b']) {
      await zones.fill(zone);
      await zones.press('Enter');
    }
    await variables.getByRole('button', { name: 'eu-west-1b' }).waitFor();
    await variables.getByLabel('admin_password').fill(DB_PASSWORD);
    // An enum is chosen from its declared values.
    await variables.getByRole('combobox', { name: 'tier' }).click();
    await expect(page.getByRole('option').allInnerTexts()).resolves.toEqual(['none (the default applies)', 'standard', 'premium']);
    await page.getByRole('option', { name: 'premium' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/resources\/[0-9a-f-]{36}\/show$/);
    resourceUrl = page.url();
    await page.getByTestId('status').locator('[data-value="approval_pending"]').waitFor();
    const id = resourceUrl.split('/').at(-2) ?? '';
    const stored = await call<{ variables: unknown[] }>(ADMIN, 'GET', `/api/resources/${id}`);
    expect(stored.variables).toEqual([
      { name: 'region', value: 'eu-west-1', sensitive: false },
      { name: 'size', value: 3, sensitive: false },
      { name: 'zones', value: ['eu-west-1a', 'eu-west-1b'], sensitive: false },
      { name: 'admin_password', value: '********', sensitive: true },
      { name: 'tier', value: 'premium', sensitive: false },
    ]);
    await expect(page.content()).resolves.not.toContain(DB_PASSWORD);
  });

  it('shows the service refusing an enum value its version no longer declares, under its input', async () => {
    const id = resourceUrl.split('/').at(-2) ?? '';
    const stored = await call<{ sourceCodeVersionId: string }>(ADMIN, 'GET', `/api/resources/${id}`);
    const version = await call<{ variables: { name: string; validation?: unknown }[] }>(
      ADMIN,
      'GET',
      `/api/source_code_versions/${stored.sourceCodeVersionId}`,
    );
    // infra edits it (the web UI opens the edit page to holders of resource:write).
    await signOut();
    await signIn(RUNNER.identifier, RUNNER.password);
    await page.goto(resourceUrl.replace(/\/show$/, ''));
    const form = page.getByTestId('typed-variables');
    await form.getByRole('combobox', { name: 'tier' }).waitFor();
    // The version's tiers change while the form is open, under a request that picked one of the old
    // ones: the form's own check still knows the old tiers, so only the service can refuse it. The
    // page is kept on the version it loaded (the live channel would otherwise refetch it, and the
    // form would refuse the stale tier itself before asking the service).
    await page.route(
      (url) => url.pathname === `/api/source_code_versions/${stored.sourceCodeVersionId}`,
      (route) => route.fulfill({ json: version }),
    );
    const variables = version.variables.map((v) => (v.name === 'tier' ? { ...v, validation: { values: ['standard', 'gold'] } } : v));
    await call(ADMIN, 'PATCH', `/api/source_code_versions/${stored.sourceCodeVersionId}`, { variables });
    await page.getByLabel('Description').first().fill('orders, with a stale tier');
    const [refused] = await Promise.all([
      page.waitForResponse((response) => response.request().method() === 'PATCH' && response.url().includes(`/api/resources/${id}`)),
      page.getByRole('button', { name: 'Save' }).click(),
    ]);
    expect(refused.status()).toBeGreaterThanOrEqual(400);
    await form.getByText('must be one of standard, gold').waitFor();
    // Said once, under its input; the notification only says that a field needs a change.
    await page.getByText('Not saved: one field needs a change.', { exact: true }).waitFor();
    await expect(page.getByText('must be one of standard, gold').count()).resolves.toBe(1);
    const after = await call<{ variables: { name: string; value: unknown }[] }>(ADMIN, 'GET', `/api/resources/${id}`);
    expect(after.variables.find((v) => v.name === 'tier')?.value).toBe('premium');
    await page.unrouteAll();
  });

  it('shows the run and tails its log live while the runner appends lines, secrets masked', async () => {
    const id = resourceUrl.split('/').at(-2) ?? '';
    await call(ADMIN, 'POST', `/api/resources/${id}/actions/approve`);
    await call(DEVELOPER, 'POST', `/api/resources/${id}/actions/execute`);
    const [run] = await call<{ id: string }[]>(DEVELOPER, 'GET', `/api/resources/${id}/runs`);
    const runId = run?.id ?? '';
    await call(RUNNER, 'POST', `/api/resources/${id}/actions/start`);
    await page.goto(resourceUrl);
    const runs = page.getByRole('region', { name: 'Runs' });
    await runs.getByTestId('runs').locator(`[data-run-id="${runId}"] [data-value="in_progress"]`).waitFor();
    const log = runs.getByRole('log');
    await log.getByText('Waiting for output…').waitFor();

    await call(RUNNER, 'POST', `/api/resources/${id}/runs/${runId}/logs`, { content: 'tofu init\n' });
    await log.getByText('tofu init').waitFor();
    await call(RUNNER, 'POST', `/api/resources/${id}/runs/${runId}/logs`, { content: `creating role with password ${DB_PASSWORD}\n` });
    await log.getByText('creating role with password ********').waitFor();
    await call(RUNNER, 'POST', `/api/resources/${id}/runs/${runId}/logs`, {
      content: 'Apply complete! Resources: 3 added, 0 changed, 0 destroyed.\n',
    });
    await log.getByText('Apply complete!').waitFor();
    await session.screenshot('typed-variables-3-live-log');
    await call(RUNNER, 'POST', `/api/resources/${id}/actions/succeed`, { outputs: { endpoint: 'orders-db.internal:5432' } });
    await runs.getByText(/\(complete\)/).waitFor();
    await runs.getByTestId('runs').locator(`[data-run-id="${runId}"] [data-value="succeeded"]`).waitFor();
    await expect(log.textContent()).resolves.toBe(
      'tofu init\ncreating role with password ********\nApply complete! Resources: 3 added, 0 changed, 0 destroyed.\n',
    );
    // Each line shows when the runner sent it, on demand; the download is the log as it was written.
    await runs.getByLabel('Show times').check();
    await expect(log.textContent()).resolves.toMatch(/^\[\d{2}:\d{2}:\d{2}\] tofu init\n\[\d{2}:\d{2}:\d{2}\] creating role/);
    const [file] = await Promise.all([page.waitForEvent('download'), runs.getByRole('button', { name: 'Download' }).click()]);
    expect(file.suggestedFilename()).toBe(`run-${runId}.log`);
    const { readFile } = await import('node:fs/promises');
    await expect(readFile(await file.path(), 'utf8')).resolves.toBe(
      'tofu init\ncreating role with password ********\nApply complete! Resources: 3 added, 0 changed, 0 destroyed.\n',
    );
    await expect(page.content()).resolves.not.toContain(DB_PASSWORD);
    expect(session.externalRequests).toEqual([]);
  });
});
