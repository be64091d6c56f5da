import { expect, test } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { createWebInbox, saveMessengerSection } from '../../../app/models/channels/messenger-settings.server';
import { MESSENGER_DEFAULTS, readMessengerSettings } from '../../../app/models/channels/messenger-settings';
import { createTestAccount } from '../../factories';
import { signIn, url } from '../helpers';

// JavaScript is off (the default): the builder is forms and reloads, the chat page is a form and a reload.

test('build a bot, talk to it on the chat page, reach the hand-over and see an agent take over', async ({ page, browser }) => {
  const a = await createTestAccount();
  const inbox = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Front desk chat' });
  await saveMessengerSection({ accountId: a.account.id, actorId: a.owner.id, inboxId: inbox.id, section: 'chatPage', value: { ...MESSENGER_DEFAULTS.chatPage, enabled: true } });
  const [row] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.id, inbox.id));
  const chatUrl = url(`/public/chat/${readMessengerSettings(row.settings).chatPage.code}`, a.domain);

  // The builder: create, attach to the inbox and switch on.
  await signIn(page, a);
  await page.goto(url('/chatbots', a.domain));
  await page.getByLabel('Name of a new bot').fill('Front desk');
  await page.getByRole('button', { name: 'Create Chatbot' }).click();
  await expect(page.getByTestId('toast')).toHaveText('Chatbot created');
  await page.getByLabel('Switched on').check();
  await page.getByLabel('Front desk chat').check();
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByTestId('toast')).toHaveText('Chatbot saved');

  // The flow: greeting → question → (Talk to sales) hand-over to the owner.
  await page.getByLabel('Kind of step').selectOption('question');
  await page.getByRole('button', { name: 'Add step' }).click();
  const step1 = page.getByRole('form', { name: 'Step 1' });
  await step1.getByLabel('Message').fill('Welcome to Acme!');
  await step1.getByLabel('Then').selectOption({ label: 'Go to 3. Ask a question with buttons' });
  await step1.getByRole('button', { name: 'Save step' }).click();
  await expect(page.getByTestId('toast')).toHaveText('Flow saved');
  const step3 = page.getByRole('form', { name: 'Step 3' });
  await step3.getByLabel('Question').fill('How can we help?');
  await step3.getByLabel('Button 1').fill('Talk to sales');
  await step3.locator('select[name="choice0Next"]').selectOption({ label: 'Go to 2. Hand over to the team' });
  await step3.getByLabel('Button 2').fill('Just browsing');
  await step3.getByRole('button', { name: 'Save step' }).click();
  await expect(page.getByTestId('toast')).toHaveText('Flow saved');
  const step2 = page.getByRole('form', { name: 'Step 2' });
  await step2.getByLabel('Assign to agent').selectOption({ label: 'Olive Owner' });
  await step2.getByRole('button', { name: 'Save step' }).click();
  await expect(page.getByTestId('toast')).toHaveText('Flow saved');
  // An empty question is refused with the field's words and nothing changes.
  await step3.getByLabel('Question').fill(' ');
  await step3.getByRole('button', { name: 'Save step' }).click();
  await expect(page.getByTestId('flow-error')).toHaveText('Step 3 (Ask a question with buttons): Question is not allowed to be empty');
  // The flow as a diagram, drawn on the server: it opens without JavaScript.
  await page.getByText('Show the flow as a diagram').click();
  await expect(page.getByTestId('flow-diagram').getByText('1. Send a message')).toBeVisible();

  // The visitor, without JavaScript, on the chat page.
  const visitorContext = await browser.newContext({ javaScriptEnabled: false });
  const visitor = await visitorContext.newPage();
  await visitor.goto(chatUrl);
  await visitor.getByLabel('Name').fill('Ada');
  await visitor.getByLabel('Email').fill('ada@example.test');
  await visitor.getByLabel('Message').fill('Hello?');
  await visitor.getByRole('button', { name: 'Send' }).click();
  const thread = visitor.getByTestId('chat-thread');
  await expect(thread).toContainText('Welcome to Acme!');
  await expect(thread).toContainText('How can we help?');
  await expect(thread.locator('[data-from="agent"]').first()).toContainText('Front desk');
  await visitor.getByTestId('bot-buttons').getByRole('button', { name: 'Talk to sales' }).click();
  await expect(thread).toContainText('Let me find someone from the team for you.');
  await expect(visitor.getByTestId('bot-buttons')).toHaveCount(0);

  // The agent sees the bot's turns, the hand-over assigned it to them, and they take over.
  const [visitorRow] = await getDb().select().from(schema.widgetVisitors).where(eq(schema.widgetVisitors.inboxId, inbox.id));
  const conversationId = visitorRow.conversationId!;
  const [conversation] = await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, conversationId));
  expect(conversation.assigneeId).toBe(a.owner.id);
  await page.goto(url(`/inbox/${conversationId}`, a.domain));
  await expect(page.getByText('How can we help?')).toBeVisible();
  await expect(page.locator('.msg-outgoing strong', { hasText: 'Front desk (bot)' })).toHaveCount(3);
  await page.getByLabel('Message', { exact: true }).fill('Hi Ada, Olive from sales here.');
  await page.getByRole('button', { name: 'Send reply' }).click();
  await expect(page.locator('pre', { hasText: 'Hi Ada, Olive from sales here.' })).toBeVisible();

  await visitor.getByRole('link', { name: 'Check for replies' }).click();
  await expect(thread).toContainText('Hi Ada, Olive from sales here.');
  await visitor.getByLabel('Message').fill('Great, I want a quote');
  await visitor.getByRole('button', { name: 'Send' }).click();
  await expect(thread.locator('[data-from="visitor"]')).toHaveCount(3);
  // The bot said nothing more: its three turns and the agent's reply.
  await expect(thread.locator('[data-from="agent"]')).toHaveCount(4);
  await visitorContext.close();

  // The bot's figures.
  await page.goto(url('/chatbots', a.domain));
  const figures = page.getByTestId('bot-Front desk');
  await expect(figures.getByTestId('fig-started')).toHaveText('1');
  await expect(figures.getByTestId('fig-handed-over')).toHaveText('1');
});
