import { expect, test } from '@playwright/test';
import { createContact } from '../../../app/models/crm/contacts.server';
import { createEmailTemplate } from '../../../app/models/productivity/email-templates.server';
import { createTestAccount } from '../../factories';
import { signIn, url } from '../helpers';

// Issue 39's screens on a 390 px phone without JavaScript: a template's attachments, and a new SMS or chat.
test.use({ viewport: { width: 390, height: 844 } });

const fitsThePhone = async (page: import('@playwright/test').Page) =>
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

test('a template’s attachments are added and removed on its screen; a new SMS or chat says plainly when the contact cannot be reached', async ({ page }) => {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  const a = await createTestAccount();
  const t = await createEmailTemplate({ accountId: a.account.id, actorId: a.owner.id, name: 'Returns', subject: '', body: 'Hello {{firstName}}' });
  const contact = await createContact({ accountId: a.account.id, actorId: a.owner.id, input: { firstName: 'Nell', lastName: 'Nophone', email: 'nell@example.test' } });
  await signIn(page, a);

  await page.goto(url(`/settings/email-templates/${t.id}`, a.domain));
  const files = page.getByTestId('template-attachments');
  await expect(files).toContainText('No attachments.');
  await files.getByLabel('Add files').setInputFiles({ name: 'return-label.txt', mimeType: 'text/plain', buffer: Buffer.from('RETURN LABEL') });
  await files.getByRole('button', { name: 'Attach' }).click();
  await expect(page.getByTestId('toast')).toContainText('Attachment Added');
  await expect(files.getByRole('link', { name: 'return-label.txt' })).toBeVisible();
  await fitsThePhone(page);
  await page.screenshot({ path: 'test-results/template-attachments-390.png', fullPage: true });
  await files.getByRole('button', { name: 'Remove return-label.txt' }).click();
  await expect(page.getByTestId('toast')).toContainText('Attachment Removed');
  await expect(files).toContainText('No attachments.');

  await page.goto(url(`/customers/${contact.id}`, a.domain));
  await page.getByRole('link', { name: 'Send SMS' }).click();
  await expect(page.getByRole('heading', { name: 'New SMS' })).toBeVisible();
  await expect(page.getByTestId('unreachable')).toHaveText('This contact has no phone number: add one on their page to send them an SMS');
  await expect(page.getByRole('button', { name: 'Send SMS' })).toBeDisabled();
  await fitsThePhone(page);
  await page.getByRole('link', { name: 'Chat', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'New chat' })).toBeVisible();
  await expect(page.getByTestId('unreachable')).toContainText('never chatted');
  await page.screenshot({ path: 'test-results/new-chat-390.png', fullPage: true });
  await fitsThePhone(page);
  expect(errors).toEqual([]);
});
