import { expect, test } from '@playwright/test';
import { createInbox, listInboxes } from '../../../app/models/inbox/inboxes.server';
import { createTestAccount } from '../../factories';
import { fieldError, signIn, url } from '../helpers';

// JavaScript is off: a field shown by a choice is shown by CSS, and nothing is created from a hidden value.
// Every other choice-dependent reveal, and the spec that checks it without JavaScript, is listed in ADR 051.
test('contact form: "Create a new inbox" reveals its name field without JavaScript and never creates an unnamed default', async ({ page }) => {
  const a = await createTestAccount();
  await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Website', channelType: 'contact_form' });
  await signIn(page, a);
  await page.goto(url('/settings/contact-form/new', a.domain));
  await expect(page.getByLabel('New inbox name')).toBeHidden();
  await page.getByLabel('Inbox', { exact: true }).selectOption({ label: 'Create a new inbox' });
  await expect(page.getByLabel('New inbox name')).toBeVisible();
  await expect(page.getByLabel('New inbox name')).toHaveValue('');
  await page.getByLabel('Header Text', { exact: true }).fill('Write to us');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, 'Inbox Name is not allowed to be empty')).toBeVisible();
  await expect(page.getByLabel('New inbox name')).toBeVisible();
  const inboxes = await listInboxes({ accountId: a.account.id });
  expect(inboxes.map((i) => i.name)).not.toContain('Contact Form');
});
