import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserSession } from '../support/browser.js';
import { openWebUi, saveForReadme, type WebUiHarness } from '../support/web-ui.js';

const ADMIN_PASSWORD = 'e2e-approvals-admin-password';
const INFRA = { identifier: 'platform-bot', password: 'platform-bot-password-1', displayName: 'Platform Bot' };
const DEVELOPER = { identifier: 'dev-bot', password: 'dev-bot-password-12', displayName: 'Dev Bot' };

describe('approvals with reasons, and the audit log filtered by actor and exported', () => {
  let ui: WebUiHarness;
  let session: BrowserSession;
  let base: string;
  let page: Page;
  const resources: Record<string, string> = {};

  beforeAll(async () => {
    ui = await openWebUi(ADMIN_PASSWORD, async ({ asAdmin, tokenOf, call }) => {
      for (const [account, role] of [
        [INFRA, 'infra'],
        [DEVELOPER, 'default'],
      ] as const) {
        await asAdmin('POST', '/api/users', {
          kind: 'service_account',
          identifier: account.identifier,
          password: account.password,
          displayName: account.displayName,
          roles: [role],
        });
      }
      const template = await asAdmin<{ id: string }>('POST', '/api/templates', { name: 'Postgres', template: 'postgres' });
      const sourceCode = await asAdmin<{ id: string }>('POST', '/api/source_codes', {
        sourceCodeUrl: 'https://git.example.test/platform/postgres.git',
        sourceCodeProvider: 'git_public',
      });
      const version = await asAdmin<{ id: string }>('POST', '/api/source_code_versions', {
        templateId: template.id,
        sourceCodeId: sourceCode.id,
        sourceCodeVersion: 'v2.1.0',
        sourceCodeFolder: 'modules/postgres',
        lifecycleState: 'active',
      });
      const developer = await tokenOf(DEVELOPER.identifier, DEVELOPER.password);
      for (const name of ['orders-db', 'scratch-db']) {
        resources[name] = (
          await call<{ id: string }>(developer, 'POST', '/api/resources', {
            name,
            templateId: template.id,
            sourceCodeVersionId: version.id,
          })
        ).id;
      }
    });
    ({ session, base, page } = ui);
  });

  afterAll(async () => {
    // Undefined when beforeAll failed half-way; the failure itself is reported there.
    await (ui as WebUiHarness | undefined)?.close();
  });

  it('lists what waits for the infra account’s approval, oldest first, with who asked', async () => {
    await ui.signIn(INFRA.identifier, INFRA.password);
    await page.getByRole('menuitem', { name: 'Waiting for my approval' }).click();
    await page.waitForURL(`${base}/approvals`);
    const queue = page.getByTestId('approval-queue');
    await queue.getByRole('link', { name: 'scratch-db' }).waitFor();
    const rows = queue.locator('tbody tr');
    await expect(rows.allTextContents()).resolves.toEqual([expect.stringContaining('orders-db'), expect.stringContaining('scratch-db')]);
    // The requester's name comes from a lookup of its own (infra may not list users).
    await rows.first().getByText(DEVELOPER.displayName).waitFor();
    await expect(rows.first().textContent()).resolves.toMatch(/orders-db\s*create\s*Postgres\s*(—|[^ ]+ = .*)\s*Dev Bot/);
    await saveForReadme(session, 'approvals');
  });

  it('approves one with a reason and rejects the other with a reason, each after its dialog', async () => {
    const queue = page.getByTestId('approval-queue');
    await queue.locator('tbody tr').filter({ hasText: 'orders-db' }).getByRole('button', { name: 'Approve' }).click();
    const approve = page.getByRole('dialog', { name: 'Approve orders-db?' });
    await approve.getByLabel('Reason (optional)').fill('Sized for the Q3 traffic; fits the budget.');
    await session.screenshot('web-ui-approvals-2-reason');
    await approve.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('orders-db approved').waitFor();
    await queue.getByRole('link', { name: 'orders-db' }).waitFor({ state: 'detached' });

    await queue.locator('tbody tr').filter({ hasText: 'scratch-db' }).getByRole('button', { name: 'Reject' }).click();
    const reject = page.getByRole('dialog', { name: 'Reject scratch-db?' });
    // Cancel sends nothing: the request still waits.
    await reject.getByRole('button', { name: 'Cancel' }).click();
    await reject.waitFor({ state: 'detached' });
    await queue.locator('tbody tr').filter({ hasText: 'scratch-db' }).getByRole('button', { name: 'Reject' }).click();
    await reject.getByLabel('Reason (optional)').fill('Use the shared cluster instead.');
    await reject.getByRole('button', { name: 'Reject' }).click();
    await page.getByText('Nothing waits for your approval.').waitFor();
  });

  it('brings an approved request back when what it deploys changes, showing the approver what changed', async () => {
    const developer = await ui.tokenOf(DEVELOPER.identifier, DEVELOPER.password);
    await ui.call(developer, 'PATCH', `/api/resources/${resources['orders-db'] ?? ''}`, { storagePath: 'states/orders-db.tfstate' });
    const queue = page.getByTestId('approval-queue');
    const row = queue.locator('tbody tr').filter({ hasText: 'orders-db' });
    await row.getByTestId('changes-since-approval').waitFor();
    await expect(row.getByTestId('diff').textContent()).resolves.toBe('storagePath: null → states/orders-db.tfstate');
    await session.screenshot('web-ui-approvals-3-changed');
  });

  it('shows the decision with its reason, actor and the status change in the resource’s history', async () => {
    await page.goto(`${base}/resources/${resources['orders-db'] ?? ''}/show`);
    const approved = page
      .getByTestId('history')
      .locator('tbody tr')
      .filter({ has: page.locator('[data-verb="approved"]') });
    await approved.getByTestId('reason').getByText('Reason: Sized for the Q3 traffic; fits the budget.').waitFor();
    await expect(approved.textContent()).resolves.toContain(INFRA.displayName);
    await expect(approved.getByTestId('diff').textContent()).resolves.toBe('status: approval_pending → ready');
    await page.getByTestId('history').locator('[data-verb="created"]').waitFor();
    await session.screenshot('web-ui-approvals-4-history');
  });

  it('filters the audit log by actor and exports exactly what it shows as CSV', async () => {
    await ui.signOut();
    await ui.signIn('admin', ADMIN_PASSWORD);
    await page.getByRole('menuitem', { name: 'Audit log' }).click();
    const log = page.getByTestId('audit-log');
    await log.waitFor();
    const actor = page.getByRole('combobox', { name: 'Actor' });
    await actor.click();
    await actor.fill('Platform');
    await page.getByRole('option', { name: INFRA.displayName }).click();
    // The list applies a filter after a debounce and re-renders its filter form when it does; picking the
    // next filter before then can be undone by that re-render, so each choice is waited into the address.
    await expect.poll(() => decodeURIComponent(page.url())).toContain('"actorId"');
    await page.getByRole('combobox', { name: 'Entity type' }).click();
    await page.getByRole('option', { name: 'resource', exact: true }).click();
    await expect.poll(() => decodeURIComponent(page.url())).toContain('"entityType":"resource"');
    await expect.poll(() => log.locator('tbody tr').count()).toBe(2);
    const shown = await log.locator('tbody tr').allTextContents();
    expect(shown).toEqual([
      expect.stringMatching(/Platform Bot\s*rejected\s*Reason: Use the shared cluster instead\.\s*resource scratch-db/),
      expect.stringMatching(/Platform Bot\s*approved\s*Reason: Sized.*resource orders-db/),
    ]);
    await saveForReadme(session, 'audit-log');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^audit-log-.*\.csv$/);
    const csv = await readFile(await download.path(), 'utf8');
    const lines = csv.trim().split('\r\n');
    expect(lines[0]).toBe('at,actor,actorId,verb,action,entityType,entityName,entityId,changes,reason,correlationId,position');
    expect(
      lines.slice(1).map((line) => line.split(',').slice(1, 2).concat(line.split(',').slice(3, 4), line.split(',').slice(6, 7))),
    ).toEqual([
      ['Platform Bot', 'rejected', 'scratch-db'],
      ['Platform Bot', 'approved', 'orders-db'],
    ]);
    expect(csv).toContain('status: approval_pending → rejected,Use the shared cluster instead.');
    expect(csv).toContain('status: approval_pending → ready,Sized for the Q3 traffic; fits the budget.,');
    expect(session.externalRequests).toEqual([]);
    expect(session.pageErrors).toEqual([]);
  });
});
