import { expect, test, type Page } from '@playwright/test';
import { createRoutingRule } from '../../../app/models/automation/routing.server';
import { ASSIGN_LIMIT_MESSAGE, SUBRULE_INCOMPLETE_MESSAGE } from '../../../app/models/automation/routing.schemas';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { ROLE_LOCKED_MESSAGE } from '../../../app/models/roles/permissions';
import { createTestAccount, createTestUser, TEST_PASSWORD } from '../../factories';
import { fieldError, hydrated, signIn, url } from '../helpers';

const toast = (page: Page) => page.getByTestId('toast');
const ruleOptions = (page: Page) => page.getByLabel('Rule', { exact: true }).locator('option').allTextContents();

test('routing: rules offered per inbox, URL subrules added without JavaScript, the limit bounds, edit and delete', async ({ page }) => {
  const a = await createTestAccount();
  await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support mail', channelType: 'email' });
  await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Website chat', channelType: 'web' });
  await signIn(page, a);
  await page.goto(url('/settings/routing', a.domain));
  await expect(page).toHaveTitle('Routing | Settings | Parley');
  await expect(page.getByTestId('empty')).toBeVisible();
  await page.getByRole('link', { name: 'Create Routing Rule' }).click();
  await expect(page).toHaveURL(url('/settings/routing/new', a.domain));
  await expect.poll(() => ruleOptions(page)).toEqual(['Round Robin', 'Active Agents', 'Last Agent Assigned', 'Team']);

  // The web inbox offers URL (not Load Balancing); choosing it re-renders the form with the draft kept.
  await page.getByLabel('Name', { exact: true }).fill('Pricing pages');
  await page.getByLabel('Inbox').selectOption({ label: 'Website chat (web)' });
  await page.getByRole('button', { name: 'Show the rules of this inbox' }).click();
  await expect.poll(() => ruleOptions(page)).toEqual(['Round Robin', 'Active Agents', 'Last Agent Assigned', 'Team', 'URL']);
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('Pricing pages');
  await page.getByLabel('Rule', { exact: true }).selectOption('url');

  await page.getByLabel('Subrule 1 value').fill('/pricing');
  await page.getByLabel('Subrule 1 condition').selectOption('contains');
  await page.getByRole('button', { name: 'Add a subrule' }).click();
  await expect(page.getByLabel('Subrule 2 value')).toBeVisible();
  await expect(page.getByLabel('Subrule 1 value')).toHaveValue('/pricing');
  await expect(page.getByLabel('Rule', { exact: true })).toHaveValue('url');
  await page.getByRole('button', { name: 'Remove subrule 2' }).click();
  await expect(page.getByLabel('Subrule 2 value')).toHaveCount(0);

  // A subrule without a user is refused with the specification's words.
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, SUBRULE_INCOMPLETE_MESSAGE)).toBeVisible();
  await expect(page.getByLabel('Subrule 1 value')).toHaveValue('/pricing');
  await page.getByLabel('Subrule 1 user').selectOption({ label: 'Olive Owner' });
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(toast(page)).toHaveText('Routing Created');
  await expect(page).toHaveURL(url('/settings/routing', a.domain));
  const urlRow = page.getByTestId('routing-rules').getByRole('row', { name: /Pricing pages/ });
  await expect(urlRow).toContainText('Website chat');
  await expect(urlRow).toContainText('URL');

  // The email inbox offers Load Balancing; the limit must be 1 to 500.
  await page.getByRole('link', { name: 'Create Routing Rule' }).click();
  await page.getByLabel('Name', { exact: true }).fill('Mail balance');
  await page.getByLabel('Inbox').selectOption({ label: 'Support mail (email)' });
  await page.getByRole('button', { name: 'Show the rules of this inbox' }).click();
  await expect.poll(() => ruleOptions(page)).toEqual(['Round Robin', 'Active Agents', 'Last Agent Assigned', 'Team', 'Load Balancing']);
  await page.getByLabel('Rule', { exact: true }).selectOption('load_balancing');
  for (const limit of ['501', '0']) {
    await page.getByLabel('Assign limit').fill(limit);
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await expect(fieldError(page, ASSIGN_LIMIT_MESSAGE)).toBeVisible();
    await expect(page.getByLabel('Assign limit')).toHaveValue(limit);
  }
  await page.getByLabel('Assign limit').fill('20');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(toast(page)).toHaveText('Routing Created');
  const mailRow = page.getByTestId('routing-rules').getByRole('row', { name: /Mail balance/ });
  await expect(mailRow).toContainText('Load Balancing');
  await expect(mailRow).toContainText('20');

  await page.getByTestId('routing-rules').getByRole('link', { name: 'Mail balance' }).click();
  await expect(page.getByLabel('Rule', { exact: true })).toHaveValue('load_balancing');
  await expect(page.getByLabel('Assign limit')).toHaveValue('20');
  await page.getByLabel('Name', { exact: true }).fill('Mail rota');
  await page.getByLabel('Rule', { exact: true }).selectOption('round_robin');
  await page.getByLabel('Assign limit').fill('500');
  await page.getByRole('button', { name: 'Update', exact: true }).click();
  await expect(toast(page)).toHaveText('Routing Updated');
  await expect(page.getByTestId('routing-rules').getByRole('row', { name: /Mail rota/ })).toContainText('Round Robin');

  await page.getByTestId('routing-rules').getByRole('link', { name: 'Mail rota' }).click();
  await page.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Are you sure you want to delete ?');
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(toast(page)).toHaveText('Routing Deleted');
  await expect(page.getByTestId('routing-rules').getByRole('row', { name: /Mail rota/ })).toHaveCount(0);
  await expect(page.getByTestId('routing-rules').getByRole('row', { name: /Pricing pages/ })).toBeVisible();
});

test('routing is locked for roles without manage_routings', async ({ page }) => {
  const a = await createTestAccount();
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support mail', channelType: 'email' });
  const rule = await createRoutingRule({
    accountId: a.account.id,
    actorId: a.owner.id,
    name: 'Rota',
    inboxId: inbox.id,
    rule: 'round_robin',
    assignLimit: null,
    teamId: null,
    subrules: [],
  });
  await signIn(page, { domain: a.domain, email: agent.email, password: TEST_PASSWORD });
  await page.goto(url('/settings/routing', a.domain));
  await expect(page.getByTestId('locked-note')).toContainText(ROLE_LOCKED_MESSAGE);
  await page.getByRole('link', { name: 'Rota' }).click();
  await expect(page).toHaveURL(url(`/settings/routing/${rule.id}`, a.domain));
  await expect(page.getByRole('button', { name: /Update/ })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Delete' })).toBeDisabled();
});

test.describe('with JavaScript', () => {
  test.use({ javaScriptEnabled: true });

  test('the rule select follows the inbox, and the URL rule shows its subrules instead of the limit', async ({ page }) => {
    const a = await createTestAccount();
    await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Website chat', channelType: 'web' });
    await signIn(page, a);
    await page.goto(url('/settings/routing/new', a.domain));
    await hydrated(page);
    await expect(page.getByRole('button', { name: 'Show the rules of this inbox' })).toHaveCount(0);
    await expect(page.getByTestId('team-field')).toBeHidden();
    await page.getByLabel('Inbox').selectOption({ label: 'Website chat (web)' });
    await expect(page.getByLabel('Rule', { exact: true }).locator('option', { hasText: 'URL' })).toHaveCount(1);
    await page.getByLabel('Rule', { exact: true }).selectOption('url');
    await expect(page.getByTestId('subrules')).toBeVisible();
    await expect(page.getByTestId('limit-field')).toBeHidden();
    await page.getByLabel('Rule', { exact: true }).selectOption('team');
    await expect(page.getByTestId('team-field')).toBeVisible();
    await expect(page.getByTestId('subrules')).toBeHidden();
  });
});
