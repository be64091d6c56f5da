import { expect, test, type Page } from '@playwright/test';
import { setAccountPlan } from '../../../app/models/accounts/accounts.server';
import {
  SLA_EMAIL_INVALID,
  SLA_EMAILS_MAX,
  SLA_NAME_REQUIRED,
  SLA_UNIT_REQUIRED,
  SLA_VALUE_NUMBER,
  defaultSlaTargets,
} from '../../../app/models/automation/sla-policies.schemas';
import { createSlaPolicy, listSlaPolicies } from '../../../app/models/automation/sla-policies.server';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { FEATURE_DENIED_MESSAGE } from '../../../app/models/plans/catalogue';
import { ROLE_LOCKED_MESSAGE } from '../../../app/models/roles/permissions';
import { createTestAccount, createTestUser, TEST_PASSWORD } from '../../factories';
import { fieldError, hydrated, signIn, url } from '../helpers';

const toast = (page: Page) => page.getByTestId('toast');

test('SLA policy: defaults, each field message, escalation rows, edit and delete, without JavaScript', async ({ page }) => {
  const a = await createTestAccount();
  await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: `support@${a.domain}.test` });
  await signIn(page, a);
  await page.goto(url('/settings/sla-policy', a.domain));
  await expect(page).toHaveTitle('SLA Policy | Settings | Parley');
  await expect(page.getByTestId('empty')).toBeVisible();
  await page.getByRole('link', { name: 'Create SLA Policy' }).click();
  await expect(page).toHaveURL(url('/settings/sla-policy/new', a.domain));

  // Section 9 defaults: five priorities, each responding in 4 hours and resolving in 2 days.
  for (const [i, priority] of ['critical', 'high', 'medium', 'low', 'default'].entries()) {
    await expect(page.getByLabel(`Target ${i + 1} priority`)).toHaveValue(priority);
  }
  for (const name of ['Critical', 'High', 'Medium', 'Low', 'Default']) {
    await expect(page.getByLabel(`${name} response value`)).toHaveValue('4');
    await expect(page.getByLabel(`${name} response unit`)).toHaveValue('hour');
    await expect(page.getByLabel(`${name} resolve value`)).toHaveValue('2');
    await expect(page.getByLabel(`${name} resolve unit`)).toHaveValue('day');
  }
  // Without JavaScript the escalation rows are in the page; they count only when escalation is on.
  await expect(page.getByTestId('escalation')).toBeVisible();

  // Empty name, a value that is not a number, a missing unit.
  await page.getByLabel('High response value').fill('soon');
  await page.getByLabel('Low resolve unit').selectOption('');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, SLA_NAME_REQUIRED)).toBeVisible();
  await expect(fieldError(page, SLA_VALUE_NUMBER)).toBeVisible();
  await expect(fieldError(page, SLA_UNIT_REQUIRED)).toBeVisible();
  await expect(page.getByLabel('High response value')).toHaveValue('soon');

  await page.getByLabel('Name', { exact: true }).fill('Gold');
  await page.getByLabel('High response value').fill('30');
  await page.getByLabel('High response unit').selectOption('minute');
  await page.getByLabel('Low resolve unit').selectOption('month');
  await page.getByRole('checkbox', { name: 'Support' }).check();

  // Escalation on: an invalid address, then four addresses (at most three).
  await page.getByRole('checkbox', { name: 'Escalate breaches by e-mail' }).check();
  await page.getByLabel('Escalation e-mail 1', { exact: true }).fill('lead-at-example');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, SLA_EMAIL_INVALID)).toBeVisible();
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('Gold');
  await expect(page.getByRole('checkbox', { name: 'Escalate breaches by e-mail' })).toBeChecked();
  await page.getByLabel('Escalation e-mail 1', { exact: true }).fill('lead@example.com');
  for (const [i, email] of ['boss@example.com', 'chief@example.com', 'ceo@example.com'].entries()) {
    await page.getByRole('button', { name: 'Add an e-mail' }).click();
    await page.getByLabel(`Escalation e-mail ${i + 2}`, { exact: true }).fill(email);
  }
  await expect(page.getByLabel('High response value')).toHaveValue('30');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, SLA_EMAILS_MAX)).toBeVisible();
  await page.getByRole('button', { name: 'Remove escalation e-mail 4' }).click();
  await expect(page.getByLabel('Escalation e-mail 4', { exact: true })).toHaveCount(0);
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(toast(page)).toHaveText('SLA Policy Created');
  await expect(page).toHaveURL(url('/settings/sla-policy', a.domain));
  const row = page.getByTestId('sla-policies').getByRole('row', { name: /Gold/ });
  await expect(row).toContainText('Support');
  await expect(row).toContainText('lead@example.com, boss@example.com, chief@example.com');
  await expect(row).toContainText('Active');

  const [policy] = (await listSlaPolicies({ accountId: a.account.id })).rows;
  expect(policy.targets[1]).toEqual({ priority: 'high', response: { value: 30, unit: 'minute' }, resolve: { value: 2, unit: 'day' } });
  expect(policy.targets[3].resolve).toEqual({ value: 2, unit: 'month' });

  await page.getByTestId('sla-policies').getByRole('link', { name: 'Gold' }).click();
  await expect(page.getByLabel('High response value')).toHaveValue('30');
  await expect(page.getByLabel('Escalation e-mail 3', { exact: true })).toHaveValue('chief@example.com');
  await page.getByRole('button', { name: 'Remove target 5' }).click();
  await expect(page.getByLabel('Target 5 priority')).toHaveCount(0);
  await page.getByRole('checkbox', { name: 'Escalate breaches by e-mail' }).uncheck();
  await page.getByRole('checkbox', { name: 'Support' }).uncheck();
  await page.getByRole('button', { name: 'Update', exact: true }).click();
  await expect(toast(page)).toHaveText('SLA Policy Updated');
  const updated = page.getByTestId('sla-policies').getByRole('row', { name: /Gold/ });
  await expect(updated).toContainText('Every other inbox');
  await expect(updated).toContainText('Off');

  await page.getByTestId('sla-policies').getByRole('link', { name: 'Gold' }).click();
  await page.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Are you sure you want to delete ?');
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(toast(page)).toHaveText('SLA Policy Deleted');
  await expect(page.getByTestId('empty')).toBeVisible();
});

test('SLA policy is locked for roles without manage_sla and refused on plans without slaManagement', async ({ page }) => {
  const a = await createTestAccount();
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
  const policy = await createSlaPolicy({ accountId: a.account.id, actorId: a.owner.id, name: 'Silver', inboxIds: [], targets: defaultSlaTargets(), isEscalate: false, escalateTo: [], isActive: true });
  await signIn(page, { domain: a.domain, email: agent.email, password: TEST_PASSWORD });
  await page.goto(url('/settings/sla-policy', a.domain));
  await expect(page.getByTestId('locked-note')).toContainText(ROLE_LOCKED_MESSAGE);
  await page.getByRole('link', { name: 'Silver' }).click();
  await expect(page).toHaveURL(url(`/settings/sla-policy/${policy.id}`, a.domain));
  await expect(page.getByRole('button', { name: /Update/ })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Delete' })).toBeDisabled();

  await setAccountPlan({ domain: a.domain, planKey: 'starter' });
  await page.goto(url('/settings/sla-policy', a.domain));
  await expect(page).toHaveURL(/\/settings(\/my-profile)?$/);
  await expect(toast(page)).toHaveText(FEATURE_DENIED_MESSAGE);
});

test.describe('with JavaScript', () => {
  test.use({ javaScriptEnabled: true });

  test('escalation e-mail entries appear only when escalation is on', async ({ page }) => {
    const a = await createTestAccount();
    await signIn(page, a);
    await page.goto(url('/settings/sla-policy/new', a.domain));
    await hydrated(page);
    await expect(page.getByTestId('escalation')).toBeHidden();
    await page.getByRole('checkbox', { name: 'Escalate breaches by e-mail' }).check();
    await expect(page.getByTestId('escalation')).toBeVisible();
    await page.getByLabel('Name', { exact: true }).fill('Bronze');
    await page.getByLabel('Escalation e-mail 1', { exact: true }).fill('lead@example.com');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await expect(toast(page)).toHaveText('SLA Policy Created');
    expect((await listSlaPolicies({ accountId: a.account.id })).rows[0]).toMatchObject({ name: 'Bronze', isEscalate: true, escalateTo: ['lead@example.com'] });
  });
});
