import { expect, test, type Page } from '@playwright/test';
import { openConversation } from '../../../app/models/inbox/conversations.server';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { createArticle } from '../../../app/models/knowledge-base/articles.server';
import { createKnowledgeBase } from '../../../app/models/knowledge-base/knowledge-bases.server';
import { createTestAccount } from '../../factories';
import { hydrated, signIn, url } from '../helpers';

/** An account with a published and a draft article, and a conversation to reply in. */
async function setup(page: Page) {
  const a = await createTestAccount();
  const kb = await createKnowledgeBase({ accountId: a.account.id, actorId: a.owner.id, name: 'Help' });
  const who = { accountId: a.account.id, knowledgeBaseId: kb.id, actorId: a.owner.id };
  const article = await createArticle({ ...who, title: 'Reset your password', body: '<p>Open settings</p>', publish: true });
  await createArticle({ ...who, title: 'Password policy draft', body: '<p>later</p>' });
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: `help@${a.domain}.test` });
  const { conversation } = await openConversation({
    accountId: a.account.id,
    inboxId: inbox.id,
    sourceType: 'email',
    subject: 'Locked out',
    contact: { email: 'cara@example.test', name: 'Cara' },
    message: { kind: 'incoming', text: 'I forgot my password' },
  });
  await signIn(page, a);
  await page.goto(url(`/inbox/${conversation.id}`, a.domain));
  return { path: new RegExp(`/hc/${kb.slug}/articles/${article.id}-reset-your-password`) };
}

test('reply box without JavaScript: search published articles and put the link in the reply', async ({ page }) => {
  const { path } = await setup(page);
  await page.getByText('Insert a link to an article').click();
  await page.getByLabel('Search published articles').fill('passw');
  await page.getByLabel('Search published articles').press('Enter');
  const list = page.getByTestId('article-links');
  await expect(list.getByRole('link', { name: /Reset your password/ })).toBeVisible();
  await expect(list).not.toContainText('Password policy draft');
  await list.getByRole('link', { name: /Reset your password/ }).click();
  await expect(page.getByLabel('Message')).toHaveValue(path);
});

test.describe('with JavaScript', () => {
  test.use({ javaScriptEnabled: true });
  test('search as you type and insert the link at the cursor', async ({ page }) => {
    const { path } = await setup(page);
    await hydrated(page);
    await page.getByLabel('Message').fill('Here you go: ');
    await page.getByText('Insert a link to an article').click();
    await page.getByLabel('Search published articles').pressSequentially('reset');
    const link = page.getByTestId('article-links').getByRole('link', { name: /Reset your password/ });
    await expect(link).toBeVisible();
    await link.click();
    await expect(page.getByLabel('Message')).toHaveValue(new RegExp(`^Here you go: .*${path.source}`));
    await expect(page).not.toHaveURL(/attach=/);
  });
});
