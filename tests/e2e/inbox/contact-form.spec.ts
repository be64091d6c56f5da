import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Page } from '@playwright/test';
import { and, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { createContactForm, listContactForms } from '../../../app/models/productivity/contact-forms.server';
import { createTestAccount } from '../../factories';
import { fieldError, signIn, url } from '../helpers';

async function supportFormConversations(accountId: number) {
  return getDb()
    .select()
    .from(schema.conversations)
    .where(and(eq(schema.conversations.accountId, accountId), eq(schema.conversations.sourceType, 'support_form')));
}

/** Reads the no-JavaScript question off the page and answers it. */
async function answerQuestion(page: Page) {
  const label = await page.locator('label[for="contact-captcha"]').textContent();
  const [, x, y] = label!.match(/What is (\d+) \+ (\d+)\?/)!;
  await page.getByLabel(label!).fill(String(Number(x) + Number(y)));
}

test('an admin creates a contact form; a visitor fixes a field error and sends it; the conversation is in the inbox (no JavaScript)', async ({ page, browser }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/settings/contact-form', a.domain));
  await expect(page).toHaveTitle('Contact Form | Settings | Parley');
  await page.getByRole('link', { name: 'Create Contact Form' }).click();

  // Section 9 defaults: the four fixed fields, phone, attachments and captcha off. No inbox yet: one is offered.
  await expect(page.getByTestId('fixed-fields')).toHaveText('Name, Email, Subject and Message are always on the form.');
  for (const box of ['Phone', 'Attachments', 'Captcha']) await expect(page.getByLabel(box, { exact: true })).not.toBeChecked();
  await expect(page.getByLabel('Inbox', { exact: true })).toHaveValue('new');
  await expect(page.getByLabel('New inbox name')).toHaveValue('Contact Form');

  // Section 5 validation.
  await page.getByLabel('Header Text', { exact: true }).fill('H'.repeat(31));
  await page.getByLabel('Submit Message').fill('');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, 'Length must be less than or equal to 30 characters')).toBeVisible();
  await expect(fieldError(page, 'Submit Message is not allowed to be empty')).toBeVisible();
  await expect(page.getByLabel('Header Text', { exact: true })).toHaveValue('H'.repeat(31));

  await page.getByLabel('Header Text', { exact: true }).fill('Write to Acme');
  await page.getByLabel('Sub Header Text').fill('We answer within one working day.');
  await page.getByLabel('Submit Text').fill('Send message');
  await page.getByLabel('Submit Message').fill('Thank you, we will reply by email.');
  await page.getByLabel('Phone', { exact: true }).check();
  await page.getByLabel('Captcha', { exact: true }).check();
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page).toHaveURL(url('/settings/contact-form', a.domain));
  await expect(page.getByTestId('toast')).toHaveText('Contact Form Created');
  await expect(page.getByTestId('contact-forms').getByRole('row', { name: /Write to Acme/ })).toContainText('Contact Form');

  // The edit page shows the public address and the embed snippet.
  await page.getByTestId('contact-forms').getByRole('link', { name: 'Write to Acme' }).click();
  const [form] = await listContactForms({ accountId: a.account.id });
  const publicUrl = url(`/contact/${form.code}`, a.domain);
  await expect(page.getByTestId('public-url')).toHaveText(publicUrl);
  await expect(page.getByLabel('Embed code')).toHaveValue(new RegExp(`^<iframe src="${publicUrl.replace(/[.?]/g, '\\$&')}"`));
  await expect(page.getByTestId('active-toggle')).toContainText('Active');

  // A visitor, not signed in, on the public page.
  const visitor = await browser.newPage({ javaScriptEnabled: false });
  await visitor.goto(publicUrl);
  await expect(visitor).toHaveTitle('Write to Acme | Parley');
  await expect(visitor.getByRole('heading', { name: 'Write to Acme' })).toBeVisible();
  await visitor.getByLabel('Name').fill('Cara Customer');
  await visitor.getByLabel('Email').fill('cara-at-example');
  await visitor.getByLabel('Phone (optional)').fill('5551234');
  await visitor.getByLabel('Subject').fill('Parcel not arrived');
  await visitor.getByLabel('Message').fill('Order 991 has not arrived yet.');
  await answerQuestion(visitor);
  await visitor.getByRole('button', { name: 'Send message' }).click();
  await expect(fieldError(visitor, 'Enter a valid email address')).toBeVisible();
  await expect(visitor.getByLabel('Name')).toHaveValue('Cara Customer');
  await expect(visitor.getByLabel('Email')).toHaveValue('cara-at-example');
  await expect(visitor.getByLabel('Phone (optional)')).toHaveValue('5551234');
  await expect(visitor.getByLabel('Subject')).toHaveValue('Parcel not arrived');
  await expect(visitor.getByLabel('Message')).toHaveValue('Order 991 has not arrived yet.');
  expect(await supportFormConversations(a.account.id)).toHaveLength(0);

  await visitor.getByLabel('Email').fill('cara@example.test');
  await answerQuestion(visitor);
  // A person takes a few seconds; a script that posts at once is refused.
  await visitor.waitForTimeout(3_100);
  await visitor.getByRole('button', { name: 'Send message' }).click();
  await expect(visitor.getByTestId('submit-message')).toHaveText('Thank you, we will reply by email.');
  await expect(visitor.getByLabel('Email')).toHaveCount(0);

  const [conv] = await supportFormConversations(a.account.id);
  expect(conv).toMatchObject({ subject: 'Parcel not arrived', inboxId: form.inboxId, status: 'open' });
  const [contact] = await getDb().select().from(schema.contacts).where(eq(schema.contacts.id, conv.contactId!));
  expect(contact).toMatchObject({ email: 'cara@example.test', phone: '5551234' });

  // Deactivated in the header, the public page is gone.
  await page.getByRole('button', { name: 'Deactivate' }).click();
  await expect(page.getByTestId('toast')).toHaveText('Contact Form Updated');
  await expect(page.getByTestId('active-toggle')).toContainText('Inactive');
  const gone = await visitor.goto(publicUrl);
  expect(gone?.status()).toBe(404);
  await expect(visitor.getByText('Sorry, the page is not found!')).toBeVisible();
  await visitor.close();
});

test('the form works embedded in an iframe on another site', async ({ page }) => {
  const a = await createTestAccount();
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Website', channelType: 'contact_form' });
  const form = await createContactForm({
    accountId: a.account.id,
    actorId: null,
    headerText: 'Embedded',
    subHeaderText: 'On the shop',
    submitText: 'Send',
    submitMsg: 'Got it, thanks.',
    inboxId: inbox.id,
    allowPhone: false,
    allowAttachments: false,
    allowCaptcha: false,
  });
  const snippet = `<iframe src="${url(`/contact/${form.code}`, a.domain)}" title="Contact" style="width:100%;min-height:720px;border:0"></iframe>`;
  // Another site on this machine (a public one would trip Chromium's local-network checks, not Parley's headers).
  const shop = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><h1>Acme shop</h1>${snippet}`));
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  await page.goto(`http://127.0.0.1:${(shop.address() as AddressInfo).port}/`);
  const frame = page.frameLocator('iframe[title="Contact"]');
  await expect(frame.getByRole('heading', { name: 'Embedded' })).toBeVisible();
  await frame.getByLabel('Name').fill('Dan Shopper');
  await frame.getByLabel('Email').fill('dan@example.test');
  await frame.getByLabel('Subject').fill('Sizes');
  await frame.getByLabel('Message').fill('Do you have it in XL?');
  await frame.getByRole('button', { name: 'Send' }).click();
  await expect(frame.getByTestId('submit-message')).toHaveText('Got it, thanks.');
  expect(await supportFormConversations(a.account.id)).toHaveLength(1);
  await new Promise((resolve) => shop.close(resolve));
});

test.describe('with JavaScript', () => {
  test.use({ javaScriptEnabled: true });

  test('the browser solves the proof of work, so the question is not needed', async ({ page }) => {
    const a = await createTestAccount();
    const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Website', channelType: 'contact_form' });
    const form = await createContactForm({
      accountId: a.account.id,
      actorId: null,
      headerText: 'Help',
      subHeaderText: 'Ask away',
      submitText: 'Send',
      submitMsg: 'Received.',
      inboxId: inbox.id,
      allowPhone: false,
      allowAttachments: false,
      allowCaptcha: true,
    });
    await page.goto(url(`/contact/${form.code}`, a.domain));
    await expect(page.getByTestId('captcha-verified')).toBeVisible({ timeout: 30_000 });
    await expect(page.locator('input[name="captchaAnswer"]')).toHaveCount(0);
    await page.getByLabel('Name').fill('Eve Visitor');
    await page.getByLabel('Email').fill('eve@example.test');
    await page.getByLabel('Subject').fill('Question');
    await page.getByLabel('Message').fill('Is this solved by my browser?');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(page.getByTestId('submit-message')).toHaveText('Received.');
    expect(await supportFormConversations(a.account.id)).toHaveLength(1);
  });
});
