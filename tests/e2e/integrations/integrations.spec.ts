import { expect, test } from '@playwright/test';
import { openConversation } from '../../../app/models/inbox/conversations.server';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { createTestAccount } from '../../factories';
import { startGithubStandIn } from '../../helpers/github-standin';
import { startShopifyStandIn } from '../../helpers/shopify-standin';
import { port, signIn, url } from '../helpers';

// The Parley under test calls Shopify and GitHub at E2E_SHOPIFY_PORT and E2E_GITHUB_PORT (global-setup); JavaScript off.
test.describe.configure({ mode: 'serial' });
let shopify: Awaited<ReturnType<typeof startShopifyStandIn>>;
let github: Awaited<ReturnType<typeof startGithubStandIn>>;
test.beforeAll(async () => {
  shopify = await startShopifyStandIn({ port: Number(process.env.E2E_SHOPIFY_PORT), clientId: 'e2e-shopify-client', clientSecret: 'e2e-shopify-secret' });
  github = await startGithubStandIn({ port: Number(process.env.E2E_GITHUB_PORT), clientId: 'Iv1.e2eclient', clientSecret: 'e2e-github-secret' });
});
test.afterAll(async () => {
  await shopify.close();
  await github.close();
});

async function conversationFor(a: Awaited<ReturnType<typeof createTestAccount>>, email: string) {
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: `support@${a.domain}.test` });
  const { conversation } = await openConversation({ accountId: a.account.id, inboxId: inbox.id, sourceType: 'email', subject: 'Where is my order?', contact: { email, name: 'Dana Doe' }, message: { kind: 'incoming', text: 'It has not arrived' } });
  return conversation;
}

test('connect Shopify through its OAuth and see the contact’s orders on the conversation', async ({ page }) => {
  const a = await createTestAccount();
  const email = `dana@${a.domain}.test`;
  const customerId = shopify.addCustomer({ email, firstName: 'Dana', lastName: 'Doe' });
  shopify.addOrder({ customerId, name: '#1001', total: '49.90' });
  const conversation = await conversationFor(a, email);
  await signIn(page, a);
  await page.goto(url('/settings/integrations', a.domain));
  await page.getByTestId('integration-shopify').getByRole('link', { name: 'Shopify' }).click();
  await page.getByLabel('Shop').fill('parley-test');
  await page.getByRole('button', { name: 'Connect Shopify' }).click();
  await expect(page.getByTestId('connection-status')).toContainText('parley-test.myshopify.com', { timeout: 20_000 });
  await page.goto(url(`/inbox/${conversation.id}`, a.domain));
  const panel = page.getByTestId('shopify-panel');
  await expect(panel.getByTestId('shopify-order')).toContainText('#1001');
  await expect(panel.getByTestId('shopify-order')).toContainText('49.90 EUR');
  await expect(panel.getByTestId('shopify-order')).toContainText('paid');
  // Cancel, with its confirmation page.
  await panel.getByRole('link', { name: 'Cancel' }).click();
  await expect(page.getByTestId('order-confirm')).toContainText('#1001');
  await page.getByRole('button', { name: 'Cancel order' }).click();
  await expect(page.getByTestId('shopify-panel').getByTestId('shopify-order')).toContainText('cancelled');
});

test('create a GitHub issue from a conversation and see the note when it closes', async ({ page }) => {
  const a = await createTestAccount();
  const conversation = await conversationFor(a, `eve@${a.domain}.test`);
  await signIn(page, a);
  await page.goto(url('/settings/integrations/github', a.domain));
  await page.getByRole('button', { name: 'Connect GitHub' }).click();
  await expect(page.getByTestId('connection-status')).toContainText('octo-agent', { timeout: 20_000 });
  await page.goto(url(`/inbox/${conversation.id}`, a.domain));
  await page.getByTestId('github-panel').getByRole('link', { name: 'Create or link an issue' }).click();
  await page.getByLabel('Repository').fill('acme/shop');
  await expect(page.getByLabel('Title')).toHaveValue('Where is my order?');
  await page.getByLabel('Description').fill('The parcel never arrived.');
  await page.getByLabel('Reopen this conversation when the issue closes').first().check();
  await page.getByRole('button', { name: 'Create issue' }).click();
  await expect(page.getByTestId('github-issue')).toContainText('acme/shop#1');
  await expect(page.getByTestId('github-issue')).toContainText('open');
  // The stand-in closes the issue and delivers the signed webhook.
  const hook = github.hooks.find((h) => h.repo === 'acme/shop' && h.url.includes(`/webhooks/integrations/github/`))!;
  hook.url = hook.url.replace(/^http:\/\/[^/]+/, `http://127.0.0.1:${port()}`);
  expect(await github.closeIssue('acme/shop', github.issues.get('acme/shop')!.length, 'maintainer')).toContain(200);
  await page.reload();
  await expect(page.getByText(/acme\/shop#\d+ was closed by maintainer/)).toBeVisible();
  await expect(page.getByTestId('github-issue')).toContainText('closed');
});
