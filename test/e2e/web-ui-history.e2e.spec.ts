import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWebUi, type WebUiHarness } from '../support/web-ui.js';

const ADMIN_PASSWORD = 'e2e-history-admin-password';

/**
 * History in a real browser (docs/contract.md, "History you can query"): two revisions of a template
 * picked on its page and compared side by side; the template starred and found on the dashboard,
 * beside the caller's own requests counted by status; a queued run cancelled from its resource's page.
 */
describe('history, favorites and my requests in the web UI', () => {
  let ui: WebUiHarness;
  let page: Page;
  let templateId = '';
  let queuedId = '';
  let rejectedId = '';
  let serviceId = '';

  beforeAll(async () => {
    ui = await openWebUi(ADMIN_PASSWORD, async ({ asAdmin, asApprover, base }) => {
      // A failed sign-in, for the audit log to say in words.
      const refused = await fetch(`${base}/api/auth/service_account/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identifier: 'ci-bot', password: 'not-the-password-at-all' }),
      });
      expect(refused.status).toBe(401);
      templateId = (await asAdmin<{ id: string }>('POST', '/api/templates', { name: 'Web app', template: 'web_app' })).id;
      await asAdmin('PATCH', `/api/templates/${templateId}`, { name: 'Web application', description: 'The storefront' });
      await asAdmin('PATCH', `/api/templates/${templateId}`, { labels: ['frontend'] });
      const queue = await asAdmin<{ id: string }>('POST', '/api/templates', { name: 'Queue', template: 'queue', abstract: true });
      await asAdmin('POST', '/api/resources', { name: 'orders-queue', templateId: queue.id });
      queuedId = (await asAdmin<{ id: string }>('POST', '/api/resources', { name: 'billing-queue', templateId: queue.id })).id;
      await asApprover('POST', `/api/resources/${queuedId}/actions/approve`, {});
      await asAdmin('POST', `/api/resources/${queuedId}/actions/execute`, {});
      rejectedId = (await asAdmin<{ id: string }>('POST', '/api/resources', { name: 'huge-queue', templateId: queue.id })).id;
      await asAdmin('POST', `/api/resources/${rejectedId}/actions/reject`, { reason: 'too big for a queue' });
      const net = await asAdmin<{ id: string }>('POST', '/api/resources', { name: 'edge-net', templateId: queue.id });
      serviceId = (await asAdmin<{ id: string }>('POST', '/api/resources', { name: 'edge-svc', templateId: queue.id, parentIds: [net.id] }))
        .id;
      await asAdmin('POST', '/api/resources', { name: 'edge-worker', templateId: queue.id, parentIds: [serviceId] });
      // Renamed after edge-svc named it: the tree shows the name now, edge-svc's history the name then.
      await asAdmin('PATCH', `/api/resources/${net.id}`, { name: 'edge-network' });
    });
    page = ui.page;
  });

  afterAll(async () => {
    await (ui as WebUiHarness | undefined)?.close();
  });

  it('shows the last change by default, and any two revisions side by side once picked', async () => {
    await ui.signIn('admin', ADMIN_PASSWORD);
    await page.goto(`${ui.base}/templates/${templateId}/show`);
    const compared = page.getByRole('table', { name: 'Revision 2 and revision 3 side by side' });
    await compared.waitFor();
    await expect(compared.getByRole('row').allInnerTexts()).resolves.toEqual([
      'Field\tRevision 2\tRevision 3',
      'labels\t[]\t[\n "frontend"\n]',
    ]);

    await page.getByRole('combobox', { name: 'From revision' }).click();
    await page.getByRole('option', { name: 'Revision 1' }).click();
    const wider = page.getByRole('table', { name: 'Revision 1 and revision 3 side by side' });
    await wider.waitFor();
    await wider.getByRole('row', { name: /^name Web app Web application$/ }).waitFor();
    await wider.getByRole('row', { name: /^description — The storefront$/ }).waitFor();
    await wider.getByRole('row', { name: /^labels/ }).waitFor();
  });

  it('stars a page and finds it among the favorites on the dashboard, beside my requests by status', async () => {
    await page.goto(`${ui.base}/templates/${templateId}/show`);
    await page.getByRole('button', { name: 'Star', exact: true }).click();
    await page.getByRole('button', { name: 'Starred' }).waitFor();
    await page.getByRole('menuitem', { name: 'Dashboard' }).click();
    const favorites = page.getByRole('region', { name: /^Favorites/ });
    await favorites.getByRole('link', { name: 'Web application' }).click();
    await page.waitForURL(`${ui.base}/templates/${templateId}/show`);
    await page.getByRole('menuitem', { name: 'Dashboard' }).click();
    const requests = page.getByRole('region', { name: /^My requests/ });
    await requests.getByRole('heading', { name: 'My requests (6)' }).waitFor();
    await requests.getByRole('link', { name: /^4\s*approval pending$/ }).waitFor();
    await requests.getByRole('link', { name: 'edge-worker' }).waitFor();
    await page.getByRole('menuitem', { name: /Waiting for my approval.*4 waiting/ }).waitFor();
  });

  it('cancels a queued run from the resource page, after a confirmation', async () => {
    await page.goto(`${ui.base}/resources/${queuedId}/show`);
    await page.getByTestId('status').locator('[data-value="queued"]').waitFor();
    await page.getByRole('button', { name: 'Cancel run' }).click();
    const confirm = page.getByRole('dialog', { name: 'Cancel run billing-queue?' });
    await confirm.getByText('Call off the queued run?').waitFor();
    await confirm.getByRole('button', { name: 'Confirm' }).click();
    await page.getByTestId('status').locator('[data-value="ready"]').waitFor();
    await page.getByRole('region', { name: 'Runs' }).locator('[data-value="cancelled"]').waitFor();
    await page.getByRole('button', { name: 'Execute' }).waitFor();
  });

  it('says beside the status who rejected a request, and why', async () => {
    await page.goto(`${ui.base}/resources/${rejectedId}/show`);
    await page.getByTestId('status').locator('[data-value="rejected"]').waitFor();
    await expect(page.getByTestId('rejection').textContent()).resolves.toBe('Rejected by Administrator: too big for a queue');
  });

  it('shows a resource’s parents and children, each a link to its page, and a template’s resources', async () => {
    await page.goto(`${ui.base}/resources/${serviceId}/show`);
    const parents = page.getByTestId('tree-parents');
    const children = page.getByTestId('tree-children');
    await parents.getByRole('link', { name: 'edge-network' }).waitFor();
    await children.getByRole('link', { name: 'edge-worker' }).click();
    await page.getByTestId('tree-parents').getByRole('link', { name: 'edge-svc' }).waitFor();
    await page.getByTestId('tree-parents').getByRole('link', { name: 'edge-network' }).waitFor();
    // The history names what the request pointed at as it was named then, not its id or its name now.
    await page.goto(`${ui.base}/resources/${serviceId}/show`);
    await page.getByTestId('history').getByRole('link', { name: 'edge-net', exact: true }).waitFor();
    await page.getByRole('link', { name: 'Queue' }).first().click();
    await page.getByTestId('related-resources').getByText('edge-worker').waitFor();
  });

  it('draws a resource’s parents and children as a graph whose nodes open their pages', async () => {
    await page.goto(`${ui.base}/resources/${serviceId}/show`);
    await page.getByRole('button', { name: 'Graph' }).click();
    const graph = page.getByTestId('relations-graph');
    await graph.waitFor();
    const names = await Promise.all((await graph.locator('[data-node]').all()).map((node) => node.getAttribute('data-node')));
    expect(names.sort()).toEqual(['edge-network', 'edge-svc', 'edge-worker']);
    // Parents to the left of the entity, children to its right.
    const left = async (name: string) => (await graph.locator(`[data-node="${name}"] rect`).boundingBox())?.x ?? Number.NaN;
    expect(await left('edge-network')).toBeLessThan(await left('edge-svc'));
    expect(await left('edge-svc')).toBeLessThan(await left('edge-worker'));
    await ui.session.screenshot('web-ui-history-graph');
    await graph.getByRole('link', { name: 'edge-worker (approval pending)' }).click();
    await page.waitForURL(/\/resources\/[0-9a-f-]+\/show$/);
    await page
      .getByRole('heading', { name: /edge-worker/ })
      .first()
      .waitFor();
  });

  it('opens a deep link after sign-in, not the dashboard', async () => {
    await ui.signOut();
    await page.goto(`${ui.base}/resources/${rejectedId}/show`);
    await page.waitForURL(`${ui.base}/login`);
    await page.getByLabel('Identifier').fill('admin');
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${ui.base}/resources/${rejectedId}/show`);
    await page.getByTestId('status').locator('[data-value="rejected"]').waitFor();
  });

  it('words a failed sign-in in the audit log: who tried, and why it was refused', async () => {
    await page.goto(`${ui.base}/audit_log?filter=${encodeURIComponent(JSON.stringify({ verb: 'sign_in_failed' }))}`);
    const row = page.getByRole('row', { name: /someone signing in as ci-bot/ });
    await row.getByText('Reason: Wrong identifier or password.').waitFor();
  });
});
