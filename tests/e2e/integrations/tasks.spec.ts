import { expect, test } from '@playwright/test';
import { openConversation } from '../../../app/models/inbox/conversations.server';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { createTestAccount } from '../../factories';
import { startAsanaStandIn } from '../../helpers/asana-standin';
import { startClickupStandIn } from '../../helpers/clickup-standin';
import { port, signIn, url } from '../helpers';

// The Parley under test calls Asana and ClickUp at E2E_ASANA_PORT and E2E_CLICKUP_PORT (global-setup); JavaScript off.
test.use({ javaScriptEnabled: false });
test.describe.configure({ mode: 'serial' });
const loopback = (u: string) => u.replace(/^http:\/\/[^/]+/, `http://127.0.0.1:${port()}`);
let asana: Awaited<ReturnType<typeof startAsanaStandIn>>;
let clickup: Awaited<ReturnType<typeof startClickupStandIn>>;
test.beforeAll(async () => {
  asana = await startAsanaStandIn({ port: Number(process.env.E2E_ASANA_PORT), clientId: 'e2e-asana-client', clientSecret: 'e2e-asana-secret', rewriteTarget: loopback });
  clickup = await startClickupStandIn({ port: Number(process.env.E2E_CLICKUP_PORT), clientId: 'e2e-clickup-client', clientSecret: 'e2e-clickup-secret' });
});
test.afterAll(async () => {
  await asana.close();
  await clickup.close();
});

async function conversationFor(a: Awaited<ReturnType<typeof createTestAccount>>) {
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: `support@${a.domain}.test` });
  const { conversation } = await openConversation({ accountId: a.account.id, inboxId: inbox.id, sourceType: 'email', subject: 'Refund never arrived', contact: { email: `dana@${a.domain}.test`, name: 'Dana Doe' }, message: { kind: 'incoming', text: 'Still waiting' } });
  return conversation;
}

test('create an Asana task from a conversation and see the note when it is completed', async ({ page }) => {
  const a = await createTestAccount();
  const conversation = await conversationFor(a);
  await signIn(page, a);
  await page.goto(url('/settings/integrations/asana', a.domain));
  await page.getByRole('button', { name: 'Connect Asana' }).click();
  await expect(page.getByTestId('connection-status')).toContainText('asa@acme.test', { timeout: 20_000 });
  await page.goto(url(`/inbox/${conversation.id}`, a.domain));
  await page.getByTestId('asana-panel').getByRole('link', { name: 'Create or link a task' }).click();
  await expect(page.getByLabel('Name')).toHaveValue('Refund never arrived');
  // The project picker lists the workspace's projects (read at Asana); a typed ID is checked too.
  await page.getByLabel('Or project ID').fill('not digits');
  await page.getByRole('button', { name: 'Create task' }).click();
  await expect(page.getByText('Project ID must be an Asana ID (digits)')).toBeVisible();
  await page.getByLabel('Or project ID').fill('');
  await page.getByLabel('Project', { exact: true }).selectOption({ label: 'Customer escalations' });
  await page.getByLabel('Description').fill('The refund is three weeks late.');
  await page.getByLabel('Reopen this conversation when the task is completed').first().check();
  await page.getByRole('button', { name: 'Create task' }).click();
  await expect(page.getByTestId('asana-task')).toContainText('Refund never arrived', { timeout: 20_000 });
  await expect(page.getByTestId('asana-task')).toContainText('open');
  expect(asana.tasks.at(-1)!.projects).toEqual(['1300000000000001']);
  expect(await asana.setCompleted(asana.tasks.at(-1)!.gid)).toEqual([200]);
  await page.reload();
  await expect(page.getByText('Asana task "Refund never arrived" was completed')).toBeVisible();
  await expect(page.getByTestId('asana-task')).toContainText('completed');
});

test('create a ClickUp task in a list from a conversation and see the note when it closes', async ({ page }) => {
  const a = await createTestAccount();
  const conversation = await conversationFor(a);
  await signIn(page, a);
  await page.goto(url('/settings/integrations/clickup', a.domain));
  await page.getByRole('button', { name: 'Connect ClickUp' }).click();
  await expect(page.getByTestId('connection-status')).toContainText('cleo@acme.test', { timeout: 20_000 });
  await page.goto(url(`/inbox/${conversation.id}`, a.domain));
  await page.getByTestId('clickup-panel').getByRole('link', { name: 'Create or link a task' }).click();
  // Workspace (the only one) → Space → "Show lists" (a GET, no script) → List.
  await page.getByLabel('Description').fill('Typed before picking');
  await page.getByLabel('Space', { exact: true }).selectOption({ label: 'Support' });
  await page.getByRole('button', { name: 'Show lists' }).click();
  await expect(page.getByLabel('Description')).toHaveValue('Typed before picking');
  await page.getByLabel('List', { exact: true }).selectOption({ label: 'Escalations › Bugs from customers' });
  await page.getByRole('button', { name: 'Create task' }).click();
  await expect(page.getByTestId('clickup-task')).toContainText('Refund never arrived', { timeout: 20_000 });
  expect(clickup.tasks.at(-1)!.listId).toBe('901100');
  expect(await clickup.setStatus(clickup.tasks.at(-1)!.id, 'complete', 'closed', { rewrite: loopback })).toEqual([200]);
  await page.reload();
  await expect(page.getByText('ClickUp task "Refund never arrived" was moved to complete by Max Maintainer')).toBeVisible();
  await expect(page.getByTestId('clickup-task')).toContainText('closed');
});
