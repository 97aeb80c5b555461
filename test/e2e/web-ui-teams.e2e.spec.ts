import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserSession } from '../support/browser.js';
import { openWebUi, type WebUiHarness } from '../support/web-ui.js';

const ADMIN_PASSWORD = 'e2e-teams-admin-password';
const LEAD = { identifier: 'pay-lead', password: 'pay-lead-password-12', displayName: 'Pay Lead' };
const MEMBER = { identifier: 'pay-member', password: 'pay-member-password-1', displayName: 'Pay Member' };
const REQUESTER = { identifier: 'search-dev', password: 'search-dev-password-1', displayName: 'Search Dev' };

/**
 * Teams in a real browser (docs/contract.md §6): the lead of the team that owns a template approves
 * its request from "Waiting for my approval"; a member sees only the buttons `availableActions` lists.
 */
describe('teams and ownership in the web UI', () => {
  let ui: WebUiHarness;
  let session: BrowserSession;
  let base: string;
  let page: Page;
  let secretId = '';
  let requestId = '';

  beforeAll(async () => {
    ui = await openWebUi(ADMIN_PASSWORD, async ({ asAdmin, tokenOf, call }) => {
      const ids: Record<string, string> = {};
      for (const account of [LEAD, MEMBER, REQUESTER]) {
        ids[account.identifier] = (
          await asAdmin<{ id: string }>('POST', '/api/users', {
            kind: 'service_account',
            identifier: account.identifier,
            password: account.password,
            displayName: account.displayName,
            roles: ['default'],
          })
        ).id;
      }
      const team = await asAdmin<{ id: string }>('POST', '/api/teams', {
        name: 'payments',
        leadIds: [ids[LEAD.identifier]],
        memberIds: [ids[MEMBER.identifier]],
      });
      const template = await asAdmin<{ id: string }>('POST', '/api/templates', {
        name: 'Payments queue',
        template: 'payments_queue',
        abstract: true,
        ownerId: team.id,
      });
      secretId = (
        await asAdmin<{ id: string }>('POST', '/api/secrets', {
          name: 'Payments DB',
          secretProvider: 'custom',
          ownerId: team.id,
          configuration: { secrets: [] },
        })
      ).id;
      await asAdmin('POST', '/api/secrets', { name: 'Shared DB', secretProvider: 'custom', configuration: { secrets: [] } });
      const requester = await tokenOf(REQUESTER.identifier, REQUESTER.password);
      requestId = (await call<{ id: string }>(requester, 'POST', '/api/resources', { name: 'payments-queue-eu', templateId: template.id }))
        .id;
    });
    ({ session, base, page } = ui);
  });

  afterAll(async () => {
    await (ui as WebUiHarness | undefined)?.close();
  });

  it('shows a member of the owning team only the actions the service lists, with why', async () => {
    await ui.signIn(MEMBER.identifier, MEMBER.password);
    // Not a lead: nothing waits for this member's approval, so the queue is not in the menu.
    await page.getByRole('menuitem', { name: 'Resources' }).waitFor();
    await expect(page.getByRole('menuitem', { name: 'Waiting for my approval' }).count()).resolves.toBe(0);
    // "My teams'" narrows a list to what the member's teams own.
    await page.getByRole('menuitem', { name: 'Secrets' }).click();
    await page.getByRole('cell', { name: 'Shared DB' }).waitFor();
    await page.getByLabel("My teams'").check();
    await page.getByRole('cell', { name: 'Shared DB' }).waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: 'Payments DB' }).waitFor();
    await page.goto(`${base}/secrets/${secretId}/show`);
    const panel = page.getByTestId('permissions-panel');
    await panel.getByText('you are in the team that owns it').waitFor();
    await expect(panel.getByTestId('available-actions').textContent()).resolves.toBe('update, disable, delete');
    await expect(panel.getByTestId('my-permission').allTextContents()).resolves.toEqual(['read', 'write']);
    // Edit, disable and delete are offered; granting (admin) is not.
    await page.getByRole('link', { name: 'Edit' }).waitFor();
    await page.getByRole('button', { name: 'Disable' }).waitFor();
    await expect(panel.getByRole('button', { name: 'Grant' }).count()).resolves.toBe(0);
    // The request for the team's template: the member may neither approve nor reject it.
    await page.goto(`${base}/resources/${requestId}/show`);
    await page.getByTestId('permissions-panel').getByTestId('available-actions').waitFor();
    await expect(page.getByTestId('lifecycle-actions').getByRole('button', { name: 'Approve' }).count()).resolves.toBe(0);
    await session.screenshot('web-ui-teams-1-member');
    await ui.signOut();
  });

  it('lets the lead approve the request from "Waiting for my approval"', async () => {
    await ui.signIn(LEAD.identifier, LEAD.password);
    await page.getByRole('menuitem', { name: 'Waiting for my approval' }).click();
    await page.waitForURL(`${base}/approvals`);
    const queue = page.getByTestId('approval-queue');
    await queue.getByRole('link', { name: 'payments-queue-eu' }).waitFor();
    await queue.locator('tbody tr').filter({ hasText: 'payments-queue-eu' }).getByRole('button', { name: 'Approve' }).click();
    const dialog = page.getByRole('dialog', { name: 'Approve payments-queue-eu?' });
    await dialog.getByLabel('Reason (optional)').fill('Owned by payments; fine.');
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('payments-queue-eu approved').waitFor();
    await page.getByText('Nothing waits for your approval.').waitFor();
    await session.screenshot('web-ui-teams-2-lead-approved');
    const audit = await ui.call<{ verb: string; changes: Record<string, unknown> }[]>(
      await ui.tokenOf('admin', ADMIN_PASSWORD),
      'GET',
      `/api/audit_log?filter=${encodeURIComponent(JSON.stringify({ entityId: requestId, verb: 'approved' }))}`,
    );
    expect(audit[0]?.changes).toMatchObject({ authority: 'lead of team payments', reason: 'Owned by payments; fine.' });
  });
  it('finds from the search box (/ or Ctrl-K) only what the caller may read, and opens it', async () => {
    await ui.signOut();
    await ui.signIn(MEMBER.identifier, MEMBER.password);
    await page.getByRole('menuitem', { name: 'Resources' }).waitFor();
    await page.keyboard.press('/');
    await expect(page.evaluate("document.activeElement?.getAttribute('aria-label')")).resolves.toBe('Search every kind');
    await page.keyboard.type('payments');
    await page.getByRole('option', { name: /Payments DB/ }).waitFor();
    await page.getByRole('option', { name: /Payments queue/ }).waitFor();
    await session.screenshot('web-ui-teams-3-search');
    await page.getByRole('option', { name: /Payments DB/ }).click();
    await page.waitForURL(`${base}/secrets/${secretId}/show`);
    await ui.signOut();
    // Not in the team: its secret is not found, the shared template is.
    await ui.signIn(REQUESTER.identifier, REQUESTER.password);
    await page.getByRole('menuitem', { name: 'Resources' }).waitFor();
    await page.keyboard.press('Control+k');
    await page.keyboard.type('payments');
    await page.getByRole('option', { name: /Payments queue/ }).waitFor();
    await expect(page.getByRole('option', { name: /Payments DB/ }).count()).resolves.toBe(0);
    expect(session.pageErrors).toEqual([]);
  });
  it('opens the page a signed-out visitor asked for once they have signed in', async () => {
    await ui.signOut();
    await page.goto(`${base}/secrets/${secretId}/show`);
    await page.waitForURL(/\/login/);
    await page.getByLabel('Identifier').fill(MEMBER.identifier);
    await page.getByLabel('Password').fill(MEMBER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/secrets/${secretId}/show`);
    await page.getByTestId('permissions-panel').waitFor();
  });
  it("fills a new template's slug from its name until one is typed", async () => {
    await ui.signOut();
    await ui.signIn('admin', ADMIN_PASSWORD);
    await page.goto(`${base}/templates/create`);
    const name = page.getByRole('textbox', { name: /^Name/ });
    const slug = page.getByRole('textbox', { name: /^Slug/ });
    await name.fill('Payments Kafka topic');
    await expect(slug.inputValue()).resolves.toBe('payments_kafka_topic');
    await slug.fill('kafka_payments');
    await name.fill('Payments Kafka topics');
    await expect(slug.inputValue()).resolves.toBe('kafka_payments');
    expect(session.pageErrors).toEqual([]);
  });
});
