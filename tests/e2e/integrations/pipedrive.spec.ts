import { expect, test } from '@playwright/test';
import { openConversation } from '../../../app/models/inbox/conversations.server';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { createTestAccount } from '../../factories';
import { startPipedriveStandIn } from '../../helpers/pipedrive-standin';
import { signIn, url } from '../helpers';

// The Parley under test calls Pipedrive at E2E_PIPEDRIVE_PORT (global-setup); JavaScript off (the project default).
// One stand-in on that port: the tests of this file share it, one after the other.
test.describe.configure({ mode: 'serial' });
let pd: Awaited<ReturnType<typeof startPipedriveStandIn>>;
test.beforeAll(async () => {
  pd = await startPipedriveStandIn({ port: Number(process.env.E2E_PIPEDRIVE_PORT), clientId: 'e2e-pipedrive-client', clientSecret: 'e2e-pipedrive-secret' });
});
test.afterAll(async () => {
  await pd.close();
});

test('connect Pipedrive through its OAuth and create a deal from a conversation', async ({ page }) => {
  const a = await createTestAccount();
  const email = `pat@${a.domain}.test`;
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: `support@${a.domain}.test` });
  const { conversation } = await openConversation({ accountId: a.account.id, inboxId: inbox.id, sourceType: 'email', subject: 'Team plan', contact: { email, name: 'Pat Prospect' }, message: { kind: 'incoming', text: 'Pricing for 20 seats?' } });
  await signIn(page, a);
  await page.goto(url('/settings/integrations/pipedrive', a.domain));
  await page.getByRole('button', { name: 'Connect Pipedrive' }).click();
  await expect(page.getByTestId('connection-status')).toContainText('parleytest', { timeout: 20_000 });
  await page.goto(url(`/inbox/${conversation.id}`, a.domain));
  await page.getByTestId('pipedrive-panel').getByRole('link', { name: 'Create a Pipedrive deal' }).click();
  await expect(page.getByLabel('Deal title')).toHaveValue('Team plan');
  await page.getByLabel('Stage ID').selectOption({ label: 'Sales · Contact Made (2)' });
  await page.getByLabel('User ID').selectOption({ label: 'Pia Planner (11)' });
  await page.getByRole('button', { name: 'Create deal' }).click();
  await expect(page.getByTestId('pipedrive-deal')).toContainText('Team plan', { timeout: 20_000 });
  await expect(page.getByTestId('pipedrive-deal')).toContainText('Contact Made');
  await expect(page.getByTestId('pipedrive-person')).toContainText('Pat Prospect');
});

test('turn on the two-way contact sync with JavaScript off: a mapping error is shown with the choices kept, then the webhook is registered', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/settings/integrations/pipedrive', a.domain));
  await page.getByRole('button', { name: 'Connect Pipedrive' }).click();
  await expect(page.getByTestId('connection-status')).toContainText('parleytest', { timeout: 20_000 });
  const sync = page.getByTestId('crm-sync');
  await sync.getByLabel('Sync contact fields both ways with Pipedrive').check();
  await sync.getByLabel('Pipedrive property for last name').selectOption({ label: 'First name' });
  await sync.getByRole('button', { name: 'Save contact sync' }).click();
  await expect(page.getByTestId('crm-sync')).toContainText('First name is already mapped to First name', { timeout: 20_000 });
  await expect(page.getByTestId('crm-sync').getByLabel('Sync contact fields both ways with Pipedrive')).toBeChecked();
  await page.getByTestId('crm-sync').getByLabel('Pipedrive property for last name').selectOption({ label: 'Last name' });
  await page.getByTestId('crm-sync').getByRole('button', { name: 'Save contact sync' }).click();
  await expect(page.getByText('Contact sync turned on')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('crm-sync').getByLabel('Pipedrive property for last name')).toHaveValue('last_name');
  expect(pd.webhooks.some((w) => w.event_object === 'person' && w.http_auth_user === 'parley')).toBe(true);
});
