import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, describeFindings, seriousOrCritical } from '../support/axe.js';
import { openBrowser, type BrowserSession } from '../support/browser.js';
import { startService, type ServiceProcess } from '../support/service-process.js';

const ADMIN_PASSWORD = 'e2e-graphiql-admin-password';
const TEMPLATE = { name: 'GraphiQL walk-through template', template: 'graphiql_walk_through', labels: ['e2e'] };

/** The text of the CodeMirror 5 editor inside `scope` (GraphiQL 4's editors keep their instance on the element). */
const editorValue = (scope: Locator): Promise<string> =>
  scope
    .locator('.CodeMirror')
    .first()
    .evaluate((element) => (element as unknown as { CodeMirror: { getValue(): string } }).CodeMirror.getValue());

/** Replaces an editor's text by typing, as a person would: focus, select all, type. */
async function typeInto(page: Page, editor: Locator, text: string): Promise<void> {
  await editor.locator('.CodeMirror').first().click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.type(text);
}

describe('GraphiQL in a browser with no internet', () => {
  let service: ServiceProcess;
  let session: BrowserSession;
  let dataDir: string;
  let token: string;
  let templateId: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'infraledger-e2e-graphiql-'));
    service = await startService({ DATA_DIR: dataDir, INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD });
    const base = service.baseUrl;
    const signIn = await fetch(`${base}/api/auth/service_account/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identifier: 'admin', password: ADMIN_PASSWORD }),
    });
    expect(signIn.status).toBe(200);
    token = ((await signIn.json()) as { token: string }).token;
    const created = await fetch(`${base}/api/templates`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(TEMPLATE),
    });
    expect(created.status).toBe(201);
    templateId = ((await created.json()) as { id: string }).id;
    // The browser reads the read model: wait (server side, bounded) until it holds the template.
    const caughtUp = await fetch(`${base}/api/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
        'x-min-position': created.headers.get('x-position') ?? '',
      },
      body: JSON.stringify({ query: '{ templatesCount }' }),
    });
    expect(await caughtUp.json()).toEqual({ data: { templatesCount: 1 } });
    session = await openBrowser();
  });
  afterAll(async () => {
    await session.close();
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('loads every script, style and font from the service itself', async () => {
    const { page } = session;
    const response = await page.goto(`${service.baseUrl}/api/graphql`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.locator('.graphiql-container').waitFor();
    // The schema arrived (introspection needs no token): the docs button works from here on.
    await page.getByRole('button', { name: 'Re-fetch GraphQL schema' }).waitFor();
    await session.settled();
    expect(session.externalRequests).toEqual([]);
    expect(session.pageErrors).toEqual([]);
  });

  it('has no serious or critical accessibility finding (axe-core)', async () => {
    const found = seriousOrCritical(await axeViolations(session.page));
    expect(found, describeFindings('/api/graphql', found)).toEqual([]);
  });

  it('shows the Headers tab with the shape of a token', async () => {
    const { page } = session;
    await page.getByRole('button', { name: 'Headers', exact: true }).click();
    const headers = page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden)');
    expect(JSON.parse(await editorValue(headers))).toEqual({ Authorization: 'Bearer <token>' });
  });

  it('autocompletes field names from the schema while typing', async () => {
    const { page } = session;
    await typeInto(page, page.locator('.graphiql-query-editor'), '{ templ');
    const hints = page.locator('.CodeMirror-hints');
    await hints.waitFor();
    expect(await hints.locator('.CodeMirror-hint').allTextContents()).toEqual(expect.arrayContaining(['templates', 'templatesCount']));
    await page.keyboard.press('Escape');
    await hints.waitFor({ state: 'detached' });
  });

  it('runs a query with the token typed into the Headers tab and shows the template', async () => {
    const { page } = session;
    const headers = page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden)');
    await typeInto(page, headers, `{"Authorization": "Bearer ${token}"}`);
    expect(JSON.parse(await editorValue(headers))).toEqual({ Authorization: `Bearer ${token}` });

    const query = page.locator('.graphiql-query-editor');
    await typeInto(page, query, '{ templates { id name } }');
    // CodeMirror closes brackets as they are typed; typing the closing ones steps over them.
    expect(await editorValue(query)).toBe('{ templates { id name } }');
    await page.getByRole('button', { name: /^Execute query/ }).click();

    const result = page.locator('.result-window');
    await result.getByText(TEMPLATE.name).waitFor();
    expect(JSON.parse(await editorValue(result))).toEqual({ data: { templates: [{ id: templateId, name: TEMPLATE.name }] } });
  });

  it('runs a subscription over WebSocket: a template created through the API appears live', async () => {
    const { page } = session;
    const query = page.locator('.graphiql-query-editor');
    await typeInto(page, query, 'subscription { changes(entityTypes: ["template"]) { action entityId } }');
    await page.getByRole('button', { name: /^Execute query/ }).click();
    // The socket signs in with the Headers tab's token; give it a moment to be acknowledged.
    await page.waitForTimeout(1000);
    const created = await fetch(`${service.baseUrl}/api/templates`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'GraphiQL live template', template: 'graphiql_live' }),
    });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { id: string }).id;
    const result = page.locator('.result-window');
    await result.getByText(id).waitFor();
    expect(JSON.parse(await editorValue(result))).toEqual({ data: { changes: { action: 'TemplateCreated', entityId: id } } });
    await page.getByRole('button', { name: /^Stop/ }).click();
  });

  it('opens the docs explorer on the Query type and its fields', async () => {
    const { page } = session;
    await page.getByRole('button', { name: 'Show Documentation Explorer' }).click();
    const docs = page.locator('.graphiql-doc-explorer');
    await docs.getByRole('link', { name: 'Query', exact: true }).click();
    await docs.locator('.graphiql-doc-explorer-title', { hasText: 'Query' }).waitFor();
    const fields = await docs.locator('.graphiql-doc-explorer-field-name').allTextContents();
    expect(fields).toEqual(expect.arrayContaining(['templates', 'templatesCount', 'me', 'enabledAuthProviders']));
    // The screenshot is a CI artifact: no bearer token in it, even a throwaway one.
    await typeInto(page, page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden)'), '{"Authorization": "Bearer <token>"}');
    await session.screenshot('graphiql');
    // With a response and the docs explorer open too.
    const found = seriousOrCritical(await axeViolations(page));
    expect(found, describeFindings('/api/graphql (docs open)', found)).toEqual([]);
    expect(session.externalRequests).toEqual([]);
    expect(session.pageErrors).toEqual([]);
  });

  // Not GraphiQL, but the other page served under /api: the same browser, the same service.
  it('renders the REST API docs (/api/docs) under their Content-Security-Policy, with no violation', async () => {
    const { page } = session;
    const response = await page.goto(`${service.baseUrl}/api/docs/`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    await page.locator('.swagger-ui .opblock-tag').first().waitFor();
    await session.settled();
    expect(await page.locator('.swagger-ui .opblock').count()).toBeGreaterThan(10);
    expect(session.externalRequests).toEqual([]);
    // A CSP violation is reported as a console error ("Refused to …").
    expect(session.pageErrors).toEqual([]);
    // Opened on an operation too, as someone trying it out sees it.
    await page.locator('.swagger-ui .opblock-summary-control').first().click();
    await page.locator('.swagger-ui .opblock.is-open').first().waitFor();
    const found = seriousOrCritical(await axeViolations(page));
    expect(found, describeFindings('/api/docs/', found)).toEqual([]);
  });

  it('uses the web UI’s session: signed in in one tab, GraphiQL and a second tab of the app need no token', async () => {
    // The app's origin (BASE_URL's host name): sign-in compares the Origin with it.
    const app = service.baseUrl.replace('127.0.0.1', 'localhost');
    const ui = await session.context.newPage();
    await ui.goto(`${app}/login`);
    await ui.getByLabel('Identifier').fill('admin');
    await ui.getByLabel('Password').fill(ADMIN_PASSWORD);
    await ui.getByRole('button', { name: 'Sign in' }).click();
    await ui.getByRole('heading', { name: /^Welcome/ }).waitFor();

    const graphiql = await session.context.newPage();
    await graphiql.goto(`${app}/api/graphql`);
    await graphiql.locator('.graphiql-container').waitFor();
    const query = graphiql.locator('.graphiql-query-editor');
    await typeInto(graphiql, query, '{ me { identifier } }');
    // The Headers tab still holds its placeholder: the session's token goes instead.
    await graphiql.getByRole('button', { name: /^Execute query/ }).click();
    const result = graphiql.locator('.result-window');
    await result.getByText('"admin"').waitFor();
    expect(JSON.parse(await editorValue(result))).toEqual({ data: { me: { identifier: 'admin' } } });

    const second = await session.context.newPage();
    await second.goto(`${app}/`);
    await second.getByRole('heading', { name: /^Welcome/ }).waitFor();
    // Signing out in one tab signs the others out.
    await second.getByRole('button', { name: 'Profile' }).click();
    await second.getByRole('menuitem', { name: 'Logout' }).click();
    await second.waitForURL(`${app}/login`);
    await ui.reload();
    await ui.waitForURL(`${app}/login`);
    for (const page of [ui, graphiql, second]) await page.close();
  });
});
