import { expect, test } from '@playwright/test';
import { openConversation } from '../../../app/models/inbox/conversations.server';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { createTestAccount } from '../../factories';
import { startPipedriveStandIn } from '../../helpers/pipedrive-standin';
import { signIn, url } from '../helpers';

// The Parley under test calls Pipedrive at E2E_PIPEDRIVE_PORT (global-setup); JavaScript off (the project default).
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
