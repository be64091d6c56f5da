import { expect, test } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { createWebInbox } from '../../../app/models/channels/messenger-settings.server';
import { postMessage } from '../../../app/models/inbox/conversations.server';
import { createTestAccount } from '../../factories';
import { fieldError, signIn, url } from '../helpers';

// JavaScript is off (the default): the chat page is a plain form and a reload.

test('a visitor chats on the hosted chat page without JavaScript', async ({ page, browser }) => {
  const a = await createTestAccount();
  const inbox = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Chat page' });

  // The owner switches the page on in Settings → Chat Pages.
  await signIn(page, a);
  await page.goto(url(`/settings/chat-pages?inbox=${inbox.id}`, a.domain));
  await page.getByLabel('Chat page on').check();
  await page.getByLabel('Heading', { exact: true }).fill('Talk to Acme');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('toast')).toHaveText('Settings Updated');
  const publicUrl = await page.getByTestId('chat-page-url').getAttribute('href');

  const visitorContext = await browser.newContext({ javaScriptEnabled: false });
  const visitor = await visitorContext.newPage();
  await visitor.goto(publicUrl!);
  await expect(visitor.getByRole('heading', { name: 'Talk to Acme' })).toBeVisible();
  await visitor.getByLabel('Name').fill('Ada');
  await visitor.getByLabel('Message').fill('Do you ship to Norway?');
  await visitor.getByRole('button', { name: 'Send' }).click();
  await expect(fieldError(visitor, 'Enter a valid email address')).toBeVisible();
  await expect(visitor.getByLabel('Message')).toHaveValue('Do you ship to Norway?');
  await visitor.getByLabel('Email').fill('ada@example.test');
  await visitor.getByRole('button', { name: 'Send' }).click();
  await expect(visitor.getByTestId('chat-thread')).toContainText('Do you ship to Norway?');

  const [visitorRow] = await getDb().select().from(schema.widgetVisitors).where(eq(schema.widgetVisitors.inboxId, inbox.id));
  await postMessage({ accountId: a.account.id, actorId: a.owner.id, conversationId: visitorRow.conversationId!, kind: 'outgoing', text: 'Yes, we do!' });
  await visitor.getByRole('link', { name: 'Check for replies' }).click();
  await expect(visitor.getByTestId('chat-thread')).toContainText('Yes, we do!');
  await visitor.getByLabel('Message').fill('Great, thanks');
  await visitor.getByRole('button', { name: 'Send' }).click();
  await expect(visitor.getByTestId('chat-thread').locator('[data-from="visitor"]')).toHaveCount(2);
  await visitorContext.close();
});

test('the Messenger settings pages work without JavaScript', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/settings/chat-messenger', a.domain));
  await page.getByLabel('Inbox name').fill('Storefront');
  await page.getByRole('button', { name: 'Create Inbox' }).click();
  await expect(page.getByTestId('toast')).toHaveText('Inbox Created');
  await expect(page.getByTestId('messenger-inboxes')).toContainText('Storefront');
  await expect(page.getByLabel('Snippet')).toHaveValue(/<script src="http:\/\/localhost:\d+\/public\/widget\.js" data-inbox="\d+" async><\/script>/);

  await page.goto(url('/settings/appearance', a.domain));
  await page.getByLabel('Brand colour').selectOption('violet');
  await page.getByLabel('Greeting').fill('');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(fieldError(page, 'Greeting is not allowed to be empty')).toBeVisible();
  await page.getByLabel('Greeting').fill('Hello there');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('toast')).toHaveText('Settings Updated');
  await expect(page.getByLabel('Brand colour')).toHaveValue('violet');

  await page.goto(url('/settings/configure', a.domain));
  await page.getByLabel('Team name').fill('');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(fieldError(page, 'Team name is not allowed to be empty')).toBeVisible();
  await page.getByLabel('Team name').fill('Storefront team');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('toast')).toHaveText('Settings Updated');
  await expect(page.getByLabel('Team name')).toHaveValue('Storefront team');

  await page.goto(url('/settings/advanced', a.domain));
  await page.getByLabel(/Allowed sites/).fill('not a host!');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(fieldError(page, 'Enter host names such as example.com, one per line')).toBeVisible();
  await expect(page.getByLabel(/Allowed sites/)).toHaveValue('not a host!');
  await page.getByLabel(/Allowed sites/).fill('shop.example.com');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('toast')).toHaveText('Settings Updated');
  await expect(page.getByLabel(/Allowed sites/)).toHaveValue('shop.example.com');

  await page.goto(url('/settings/offline-experience', a.domain));
  await page.getByLabel('Phone number').check();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('toast')).toHaveText('Settings Updated');
  await expect(page.getByLabel('Phone number')).toBeChecked();
});
