import { expect, test } from '@playwright/test';
import { createArticle } from '../../../app/models/knowledge-base/articles.server';
import { createKnowledgeBase } from '../../../app/models/knowledge-base/knowledge-bases.server';
import { openConversation } from '../../../app/models/inbox/conversations.server';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { createTestAccount } from '../../factories';
import { hydrated, signIn, url } from '../helpers';

test.use({ javaScriptEnabled: true });

test('with JavaScript, an article found as the agent types is linked at the cursor of the reply, without a reload', async ({ page }) => {
  const a = await createTestAccount();
  const kb = await createKnowledgeBase({ accountId: a.account.id, actorId: a.owner.id, name: 'Help' });
  const article = await createArticle({ accountId: a.account.id, knowledgeBaseId: kb.id, actorId: a.owner.id, title: 'Reset your password', body: '<p>Use the link.</p>', publish: true });
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: `help-${a.account.id}@x.test` });
  const { conversation } = await openConversation({
    accountId: a.account.id,
    inboxId: inbox.id,
    sourceType: 'email',
    subject: 'Locked out',
    contact: { email: 'ada@example.com', name: 'Ada' },
    message: { kind: 'incoming', text: 'I forgot my password' },
  });
  await signIn(page, a);
  await page.goto(url(`/inbox/${conversation.id}`, a.domain));
  await hydrated(page);
  await page.getByLabel('Message').fill('Hello Ada, see ');
  await page.getByText('Insert a link to an article').click();
  await page.getByLabel('Search articles').pressSequentially('passw');
  const result = page.getByTestId('article-links').getByRole('link', { name: /Reset your password/ });
  await expect(result).toBeVisible();
  const before = page.url();
  await result.click();
  await expect(page.getByLabel('Message')).toHaveValue(new RegExp(`^Hello Ada, see Reset your password: https?://.+/hc/${kb.slug}/articles/${article.id}-reset-your-password$`));
  expect(page.url()).toBe(before);
});
