import { expect, test } from '@playwright/test';
import { getDb, schema } from '../../../db/client';
import { openConversation } from '../../../app/models/inbox/conversations.server';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { createTestAccount } from '../../factories';
import { startOpenAiStandin } from '../../helpers/openai-standin';
import { hydrated, signIn, url } from '../helpers';

async function setup() {
  const a = await createTestAccount();
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: `help@${a.domain}.test` });
  await getDb().insert(schema.cannedResponses).values({ accountId: a.account.id, name: 'Shipping times', message: 'Parcels ship within two working days.' });
  const { conversation } = await openConversation({
    accountId: a.account.id,
    inboxId: inbox.id,
    sourceType: 'email',
    subject: 'Where is my parcel?',
    contact: { email: 'cara@example.test', name: 'Cara Customer' },
    message: { kind: 'incoming', text: 'When does shipping happen?' },
  });
  return { ...a, conversation };
}

test('AI help without JavaScript: suggestions without a server, then a rewrite through an OpenAI-compatible server', async ({ page }) => {
  const s = await setup();
  const ai = await startOpenAiStandin({ apiKey: 'sk-e2e-key' });
  try {
    await signIn(page, s);
    await page.goto(url(`/inbox/${s.conversation.id}`, s.domain));
    const help = page.getByTestId('ai-help');
    await help.getByLabel('What should the reply say?').fill('shipping times');
    await help.getByRole('button', { name: 'Suggest responses' }).click();
    await expect(page.getByTestId('ai-suggestions')).toContainText('Suggestions (not AI)');
    await page.getByRole('link', { name: 'Use Shipping times' }).click();
    await expect(page.getByLabel('Message')).toHaveValue('Parcels ship within two working days.');

    await page.goto(url('/settings/ai-help', s.domain));
    await page.getByLabel('Server base URL').fill(ai.baseUrl);
    await page.getByLabel('Model').fill('local-llm');
    await page.getByLabel('API key').fill('sk-e2e-key');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('A key is stored (encrypted)')).toBeVisible();
    await expect(page.getByLabel('API key')).toHaveValue('');

    await page.goto(url(`/inbox/${s.conversation.id}`, s.domain));
    await page.getByLabel('Message').fill('ur parcel is coming');
    await help.getByLabel('Rewrite').selectOption('friendlier');
    await help.getByRole('button', { name: 'Rewrite reply' }).click();
    await expect(page.getByLabel('Message')).toHaveValue(/^Rewritten \(make it warmer and friendlier\): Thanks for waiting/, { timeout: 20_000 });
    await expect(page.getByTestId('ai-status')).toContainText('review it before you send');
    expect(ai.requests.at(-1)?.body.model).toBe('local-llm');
  } finally {
    await ai.close();
  }
});

test.describe('with JavaScript', () => {
  test.use({ javaScriptEnabled: true });
  test('the answer streams into the reply box without a reload, and is not sent', async ({ page }) => {
    const s = await setup();
    const ai = await startOpenAiStandin();
    try {
      await getDb().insert(schema.aiSettings).values({ accountId: s.account.id, baseUrl: ai.baseUrl, model: 'local-llm' });
      await signIn(page, s);
      await page.goto(url(`/inbox/${s.conversation.id}`, s.domain));
      await hydrated(page);
      const help = page.getByTestId('ai-help');
      await help.getByLabel('What should the reply say?').fill('say when it ships');
      await help.getByRole('button', { name: 'Write with AI' }).click();
      await expect(page.getByLabel('Message')).toHaveValue('Hello! Your parcel ships within two working days.', { timeout: 20_000 });
      await expect(page.getByTestId('ai-status')).toContainText('review it before you send');
      await expect(page).toHaveURL(url(`/inbox/${s.conversation.id}`, s.domain));
      await expect(page.getByTestId('thread')).not.toContainText('Hello! Your parcel ships');
    } finally {
      await ai.close();
    }
  });
});
