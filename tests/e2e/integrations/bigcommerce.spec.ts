import { expect, test, type Page } from '@playwright/test';
import { openConversation } from '../../../app/models/inbox/conversations.server';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { createTestAccount } from '../../factories';
import { startBigcommerceStandIn } from '../../helpers/bigcommerce-standin';
import { signIn, url } from '../helpers';

// The Parley under test calls BigCommerce at E2E_BIGCOMMERCE_PORT (global-setup); JavaScript off (the project default).
// One stand-in on its fixed port: the tests of this file run one after the other in one worker.
test.describe.configure({ mode: 'serial' });
let bc: Awaited<ReturnType<typeof startBigcommerceStandIn>>;
test.beforeAll(async () => {
  bc = await startBigcommerceStandIn({ port: Number(process.env.E2E_BIGCOMMERCE_PORT) });
});
test.afterAll(async () => {
  await bc.close();
});

async function conversationWith(a: Awaited<ReturnType<typeof createTestAccount>>, email: string, name: string) {
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: `support@${a.domain}.test` });
  const { conversation } = await openConversation({ accountId: a.account.id, inboxId: inbox.id, sourceType: 'email', subject: 'About my order', contact: { email, name }, message: { kind: 'incoming', text: 'Please help' } });
  return conversation;
}

/** Connects the stand-in store from the settings page, as an admin would. */
async function connectStore(page: Page, domain: string) {
  await page.goto(url('/settings/integrations/bigcommerce', domain));
  await page.getByLabel('Store hash').fill(bc.storeHash);
  await page.getByLabel('Access token').fill(bc.token);
  await page.getByRole('button', { name: 'Connect BigCommerce' }).click();
  await expect(page.getByTestId('connection-status')).toContainText(bc.storeHash, { timeout: 20_000 });
}

test('connect BigCommerce with a store API account and cancel a contact’s order from the conversation', async ({ page }) => {
  const a = await createTestAccount();
  const email = `bea@${a.domain}.test`;
  const order = bc.addOrder({ customerId: bc.addCustomer({ email, firstName: 'Bea', lastName: 'Buyer' }), total: '32.5000' });
  const conversation = await conversationWith(a, email, 'Bea Buyer');
  await signIn(page, a);
  await page.goto(url('/settings/integrations/bigcommerce', a.domain));
  await page.getByLabel('Store hash').fill(bc.storeHash);
  await page.getByLabel('Access token').fill('wrong-token');
  await page.getByRole('button', { name: 'Connect BigCommerce' }).click();
  await expect(page.getByText('BigCommerce refused this access token for this store')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByLabel('Store hash')).toHaveValue(bc.storeHash);
  await page.getByLabel('Access token').fill(bc.token);
  await page.getByRole('button', { name: 'Connect BigCommerce' }).click();
  await expect(page.getByTestId('connection-status')).toContainText(bc.storeHash, { timeout: 20_000 });

  await page.goto(url(`/inbox/${conversation.id}`, a.domain));
  const panel = page.getByTestId('bigcommerce-panel');
  await expect(panel.getByTestId('bigcommerce-order')).toContainText(`#${order}`);
  await expect(panel.getByTestId('bigcommerce-order')).toContainText('32.50 USD');
  await expect(panel.getByTestId('bigcommerce-order')).toContainText('Awaiting Fulfillment');
  await panel.getByRole('link', { name: 'Cancel' }).click();
  await expect(page.getByTestId('order-confirm')).toContainText(`#${order}`);
  await page.getByRole('button', { name: 'Cancel order' }).click();
  await expect(page.getByTestId('bigcommerce-panel').getByTestId('bigcommerce-order')).toContainText('Cancelled', { timeout: 20_000 });
});

test('refund a contact’s BigCommerce order with the refund method BigCommerce quoted', async ({ page }) => {
  const a = await createTestAccount();
  const email = `rae@${a.domain}.test`;
  const order = bc.addOrder({ customerId: bc.addCustomer({ email, firstName: 'Rae', lastName: 'Refund' }), total: '25.0000' });
  const conversation = await conversationWith(a, email, 'Rae Refund');
  await signIn(page, a);
  await connectStore(page, a.domain);

  await page.goto(url(`/inbox/${conversation.id}`, a.domain));
  await page.getByTestId('bigcommerce-panel').getByRole('link', { name: 'Refund' }).click();
  await expect(page.getByTestId('order-confirm')).toContainText('25.00 USD');
  await page.getByLabel(/Store Credit/).check();
  await page.getByRole('button', { name: 'Refund order' }).click();
  await expect(page.getByTestId('bigcommerce-panel').getByTestId('bigcommerce-order')).toContainText('Refunded', { timeout: 20_000 });
  await expect(page.getByText(`Refunded BigCommerce order #${order} (25.00 USD via Store Credit)`).first()).toBeVisible();
});

test('import past BigCommerce orders as sales: the job runs and the page shows its result', async ({ page }) => {
  test.setTimeout(120_000);
  const a = await createTestAccount();
  const customerId = bc.addCustomer({ email: `ivy@${a.domain}.test`, firstName: 'Ivy', lastName: 'Import' });
  bc.addOrder({ customerId, total: '12.0000', statusId: 10 });
  bc.addOrder({ customerId, total: '8.0000', statusId: 5 });
  await signIn(page, a);
  await connectStore(page, a.domain);
  await page.getByRole('button', { name: 'Import past orders' }).click();
  await expect(page.getByTestId('order-import-status')).toBeVisible({ timeout: 20_000 });
  // The engine works the job; a reload shows where it is (no script needed).
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId('order-import-status')).toContainText('Done at', { timeout: 1_000 });
  }).toPass({ timeout: 60_000 });
  const text = await page.getByTestId('order-import-status').textContent();
  expect(text).toMatch(/\d+ orders? read in \d+ pages?, \d+ sales? recorded, \d+ already counted, \d+ not sales/);
});
