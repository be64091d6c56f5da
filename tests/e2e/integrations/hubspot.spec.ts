import { expect, test } from '@playwright/test';
import { openConversation } from '../../../app/models/inbox/conversations.server';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { createTestAccount } from '../../factories';
import { startHubspotStandIn } from '../../helpers/hubspot-standin';
import { signIn, url } from '../helpers';

// The Parley under test calls HubSpot at E2E_HUBSPOT_PORT (global-setup); JavaScript off (the project default).
// One stand-in on that port: the tests of this file share it, one after the other.
test.describe.configure({ mode: 'serial' });
let hs: Awaited<ReturnType<typeof startHubspotStandIn>>;
test.beforeAll(async () => {
  hs = await startHubspotStandIn({ port: Number(process.env.E2E_HUBSPOT_PORT), clientId: 'e2e-hubspot-client', clientSecret: 'e2e-hubspot-secret' });
});
test.afterAll(async () => {
  await hs.close();
});

test('connect HubSpot through its OAuth, create the contact and a deal from a conversation', async ({ page }) => {
  const a = await createTestAccount();
  const email = `carl@acme-${a.domain}.test`;
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: `support@${a.domain}.test` });
  const { conversation } = await openConversation({ accountId: a.account.id, inboxId: inbox.id, sourceType: 'email', subject: 'Upgrade to 50 seats', contact: { email, name: 'Carl Client' }, message: { kind: 'incoming', text: 'We want to upgrade' } });
  await signIn(page, a);
  await page.goto(url('/settings/integrations/hubspot', a.domain));
  await page.getByRole('button', { name: 'Connect HubSpot' }).click();
  await expect(page.getByTestId('connection-status')).toContainText(String(hs.hubId), { timeout: 20_000 });

  await page.goto(url(`/inbox/${conversation.id}`, a.domain));
  const panel = page.getByTestId('hubspot-panel');
  await expect(panel).toContainText('No HubSpot contact with this email.');
  await panel.getByLabel('Lead status').selectOption('OPEN');
  await panel.getByRole('button', { name: 'Create contact and company' }).click();
  await expect(page.getByTestId('hubspot-contact')).toContainText('Carl Client', { timeout: 20_000 });
  await expect(page.getByTestId('hubspot-contact')).toContainText('Lead status: Open');

  await page.getByTestId('hubspot-panel').getByRole('link', { name: 'Create a deal' }).click();
  await expect(page.getByLabel('Deal name')).toHaveValue('Upgrade to 50 seats');
  await page.getByLabel('Deal stage').selectOption({ label: 'Sales Pipeline · Qualified To Buy' });
  await page.getByLabel('Close date').fill('2026-12-31');
  await page.getByLabel('Owner').selectOption({ label: 'Olga Owner' });
  await page.getByRole('button', { name: 'Create deal' }).click();
  const deal = page.getByTestId('hubspot-deal');
  await expect(deal).toContainText('Upgrade to 50 seats', { timeout: 20_000 });
  await expect(deal).toContainText('Qualified To Buy');
  await page.getByTestId('hubspot-panel').getByRole('button', { name: 'Log conversation' }).click();
  await expect(page.getByText(/Logged this conversation to HubSpot/).first()).toBeVisible({ timeout: 20_000 });
});

test('turn on the HubSpot contact sync with JavaScript off; without the app developer key the webhook address is shown', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/settings/integrations/hubspot', a.domain));
  await page.getByRole('button', { name: 'Connect HubSpot' }).click();
  await expect(page.getByTestId('connection-status')).toContainText(String(hs.hubId), { timeout: 20_000 });
  const sync = page.getByTestId('crm-sync');
  await expect(sync.getByLabel('HubSpot property for phone')).toHaveValue('phone');
  await sync.getByLabel('Sync contact fields both ways with HubSpot').check();
  await sync.getByLabel('HubSpot property for phone').selectOption({ label: 'Mobile phone number (mobilephone)' });
  await sync.getByRole('button', { name: 'Save contact sync' }).click();
  await expect(page.getByText('Contact sync turned on')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('crm-sync').getByLabel('Sync contact fields both ways with HubSpot')).toBeChecked();
  await expect(page.getByTestId('crm-sync').getByLabel('HubSpot property for phone')).toHaveValue('mobilephone');
  await expect(page.getByTestId('crm-sync-manual')).toContainText('/webhooks/integrations/hubspot');
});
