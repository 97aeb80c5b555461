import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWebUi, type WebUiHarness } from '../support/web-ui.js';

const ADMIN_PASSWORD = 'e2e-history-admin-password';

/**
 * History in a real browser (docs/contract.md, "History you can query"): two revisions of a template
 * picked on its page and compared side by side.
 */
describe('comparing revisions in the web UI', () => {
  let ui: WebUiHarness;
  let page: Page;
  let templateId = '';

  beforeAll(async () => {
    ui = await openWebUi(ADMIN_PASSWORD, async ({ asAdmin }) => {
      templateId = (await asAdmin<{ id: string }>('POST', '/api/templates', { name: 'Web app', template: 'web_app' })).id;
      await asAdmin('PATCH', `/api/templates/${templateId}`, { name: 'Web application', description: 'The storefront' });
      await asAdmin('PATCH', `/api/templates/${templateId}`, { labels: ['frontend'] });
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
});
