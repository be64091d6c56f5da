import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { list } from 'tar';
import { getSql } from '../../../db/client';
import { createTestAccount, createTestUser, TEST_PASSWORD } from '../../factories';
import { seedAccountData } from '../../helpers/account-data';
import { signIn, toast, url } from '../helpers';

test('data export without JavaScript: the owner requests it, the engine makes it, it downloads once; an agent is refused', async ({ page, browser }) => {
  const a = await createTestAccount();
  await seedAccountData(a.account.id, a.owner.id);
  await signIn(page, a);
  await page.goto(url('/settings/data-export', a.domain));
  await expect(page.getByTestId('exports-empty')).toBeVisible();
  await page.getByRole('button', { name: 'Request export' }).click();
  await expect(toast(page)).toContainText('Export requested');
  // The engine of the e2e server makes it; the page reloads itself (meta refresh) until it is ready.
  await expect(page.getByTestId('export-status')).toHaveText('Ready to download', { timeout: 60_000 });

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-download').click()]);
  const saved = path.join(os.tmpdir(), `e2e-export-${a.account.id}.tar.gz`);
  await download.saveAs(saved);
  const entries: string[] = [];
  await list({ file: saved, onReadEntry: (e) => entries.push(e.path) });
  expect(entries).toContain('manifest.json');
  expect(entries).toContain('data/messages.jsonl');
  expect(entries.filter((e) => e.startsWith('files/') && !e.endsWith('/')).length).toBe(3);
  fs.rmSync(saved, { force: true });

  // The row says it went, and a second download is refused with the reason.
  await page.goto(url('/settings/data-export', a.domain));
  await expect(page.getByTestId('export-status')).toHaveText('Downloaded');
  const [row] = await getSql()`select id from account_exports where account_id = ${a.account.id}`;
  await page.goto(url(`/settings/data-export/${row.id}/download`, a.domain));
  await expect(toast(page)).toContainText('already been downloaded');

  // An agent is refused: the page falls back with the reason, and a post gets 403.
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
  const context = await browser.newContext({ javaScriptEnabled: false });
  const agentPage = await context.newPage();
  await signIn(agentPage, { domain: a.domain, email: agent.email, password: TEST_PASSWORD });
  await agentPage.goto(url('/settings/data-export', a.domain));
  await expect(toast(agentPage)).toContainText("You aren't authorized");
  await expect(agentPage.getByRole('button', { name: 'Request export' })).toHaveCount(0);
  await context.close();
});

test('erase a contact through the typed confirmation, without JavaScript', async ({ page }) => {
  const a = await createTestAccount();
  const seed = await seedAccountData(a.account.id, a.owner.id);
  await signIn(page, a);
  await page.goto(url(`/customers/${seed.contact.id}`, a.domain));
  await page.getByRole('link', { name: 'Erase personal data' }).click();
  await expect(page.getByTestId('erase-mode')).toContainText('kept, anonymised');
  await page.getByLabel('Type ERASE to confirm').fill('yes');
  await page.getByRole('button', { name: 'Erase personal data' }).click();
  await expect(page.getByText('Type ERASE to confirm', { exact: true }).last()).toBeVisible();
  await page.getByLabel('Type ERASE to confirm').fill('ERASE');
  await page.getByRole('button', { name: 'Erase personal data' }).click();
  await expect(page).toHaveURL(url('/customers', a.domain));
  await expect(toast(page)).toContainText('Personal data erased');
  const [{ n }] = await getSql()`select count(*)::int as n from contacts where id = ${seed.contact.id}`;
  expect(n).toBe(0);
  await page.goto(url(`/inbox/${seed.conversation.id}`, a.domain));
  await expect(page.getByText('Conversation with an erased contact').first()).toBeVisible();
});
