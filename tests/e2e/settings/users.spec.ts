import { expect, test, type Page } from '@playwright/test';
import crypto from 'node:crypto';
import { createTestAccount, createTestUser, TEST_PASSWORD } from '../../factories';
import { fieldError, latestMail, signIn, toast, url } from '../helpers';

function rowOf(page: Page, email: string) {
  return page.getByTestId('users-table').locator('tbody tr', { hasText: email });
}

test('an owner invites an agent, who joins; refusing access signs the agent out', async ({ page, browser }) => {
  const a = await createTestAccount();
  await signIn(page, { domain: a.domain, email: a.email, password: a.password });

  const invitee = `agent-${crypto.randomBytes(3).toString('hex')}@example.test`;
  await page.goto(url('/settings/users', a.domain));
  await expect(page).toHaveTitle('Users | Settings | Parley');
  await page.getByLabel('Email', { exact: true }).fill(invitee);
  await page.getByLabel('First name').fill('Ada');
  await page.getByLabel('Last name').fill('Lovelace');
  await page.getByLabel('Role').selectOption({ label: 'Agent' });
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await expect(page).toHaveURL(url('/settings/users', a.domain));
  await expect(page.getByTestId('toast')).toHaveText('Invitation sent');
  await expect(rowOf(page, invitee)).toContainText('Ada Lovelace');
  await expect(rowOf(page, invitee)).toContainText('Agent');
  await expect(rowOf(page, invitee)).toContainText('Invited');

  // The engine mails the invitation after the event commits.
  const mail = await latestMail(invitee, { subject: /invited/ });
  const link = mail.text.match(/https?:\/\/\S+\/set-password\?token=\S+/)![0];
  expect(link).toContain(url('/set-password?token=', a.domain));

  const inviteeContext = await browser.newContext();
  const agentPage = await inviteeContext.newPage();
  await agentPage.goto(link);
  await agentPage.getByLabel('Password', { exact: true }).fill('an-agent-password');
  await agentPage.getByLabel('Confirm password').fill('an-agent-password');
  await agentPage.getByRole('button', { name: 'Set password' }).click();
  await expect(agentPage).toHaveURL(url('/signin', a.domain));
  await signIn(agentPage, { domain: a.domain, email: invitee, password: 'an-agent-password' });
  await expect(agentPage).toHaveURL(url('/home', a.domain));

  await page.goto(url('/settings/users', a.domain));
  await expect(rowOf(page, invitee)).toContainText('Active');
  await rowOf(page, invitee).getByRole('button', { name: 'Refuse access' }).click();
  await expect(page.getByTestId('toast')).toHaveText('User Updated');
  await expect(rowOf(page, invitee)).toContainText('Access refused');
  await expect(rowOf(page, invitee).getByRole('button', { name: 'Give access' })).toBeVisible();

  // The agent's next request finds them signed out, and signing in again is refused.
  await agentPage.goto(url('/inbox', a.domain));
  await expect(agentPage).toHaveURL(/\/signin\?redirectTo=%2Finbox$/);
  await agentPage.getByLabel('Email').fill(invitee);
  await agentPage.getByLabel('Password').fill('an-agent-password');
  await agentPage.getByRole('button', { name: 'Sign in' }).click();
  await expect(agentPage.getByRole('alert')).toContainText('Your access to this account has been refused');
  await inviteeContext.close();
});

test('an agent opening the users settings falls back to Settings with the denial', async ({ page }) => {
  const a = await createTestAccount();
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
  await signIn(page, { domain: a.domain, email: agent.email, password: TEST_PASSWORD });
  // Denied page loads fall back to the settings page with the denial (section 2).
  await page.goto(url('/settings/users', a.domain));
  await expect(page).toHaveURL(/\/settings(\/my-profile)?$/);
  await expect(toast(page)).toHaveText("You aren't authorized to see this page.");
  await page.goto(url(`/settings/users/${a.owner.id}`, a.domain));
  await expect(page).toHaveURL(/\/settings(\/my-profile)?$/);
  await expect(toast(page)).toHaveText("You aren't authorized to see this page.");
  // The settings menu marks the page as denied by the role.
  await page.goto(url('/settings/my-profile', a.domain));
  await expect(page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: /Users/ }).locator('[data-denied="role"]')).toBeVisible();
});

test('the invite form shows the specification messages with a 400 and keeps what was typed', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, { domain: a.domain, email: a.email, password: a.password });
  await page.goto(url('/settings/users', a.domain));
  await page.getByLabel('Email', { exact: true }).fill('not-an-email');
  await page.getByLabel('First name').fill('A');
  await page.getByLabel('Last name').fill('ThisLastNameIsFarTooLong');
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/settings/users')),
    page.getByRole('button', { name: 'Send invitation' }).click(),
  ]);
  expect(response.status()).toBe(400);
  await expect(fieldError(page, 'Enter a valid email address')).toBeVisible();
  await expect(fieldError(page, 'Length must be at least 2 characters')).toBeVisible();
  await expect(fieldError(page, 'Length must be less than or equal to 20 characters')).toBeVisible();
  await expect(page.getByLabel('Email', { exact: true })).toHaveValue('not-an-email');
  await expect(page.getByLabel('Last name')).toHaveValue('ThisLastNameIsFarTooLong');

  // An address already in the account is refused too.
  await page.getByLabel('Email', { exact: true }).fill(a.email.toUpperCase());
  await page.getByLabel('First name').fill('Olive');
  await page.getByLabel('Last name').fill('Again');
  const [dup] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/settings/users')),
    page.getByRole('button', { name: 'Send invitation' }).click(),
  ]);
  expect(dup.status()).toBe(400);
  await expect(fieldError(page, 'A user with this email already exists')).toBeVisible();
});

test('an owner edits and deletes a user through the confirmation', async ({ page }) => {
  const a = await createTestAccount();
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent', firstName: 'Temp' });
  await signIn(page, { domain: a.domain, email: a.email, password: a.password });
  await page.goto(url(`/settings/users/${agent.id}`, a.domain));
  await expect(page.getByRole('navigation', { name: 'Breadcrumb' })).toHaveText(/Settings\s*\/?\s*Users\s*\/?\s*Temp Agent/);
  await page.getByLabel('First name').fill('Renamed');
  await page.getByLabel('Role').selectOption({ label: 'Admin' });
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(url('/settings/users', a.domain));
  await expect(page.getByTestId('toast')).toHaveText('User Updated');
  await expect(rowOf(page, agent.email)).toContainText('Renamed Agent');
  await expect(rowOf(page, agent.email)).toContainText('Admin');

  await rowOf(page, agent.email).getByRole('link', { name: 'Edit' }).click();
  await page.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Are you sure you want to delete ?');
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(page).toHaveURL(url('/settings/users', a.domain));
  await expect(page.getByTestId('toast')).toHaveText('User Deleted');
  await expect(rowOf(page, agent.email)).toHaveCount(0);

  // The owner's own page offers neither refusal nor deletion.
  await page.goto(url(`/settings/users/${a.owner.id}`, a.domain));
  await expect(page.getByRole('button', { name: 'Delete' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Refuse access' })).toHaveCount(0);
});

test('account settings: the owner saves them; an agent sees them locked', async ({ page, browser }) => {
  const a = await createTestAccount();
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
  await signIn(page, { domain: a.domain, email: a.email, password: a.password });
  await page.goto(url('/settings/account-settings', a.domain));
  await expect(page).toHaveTitle('Account Settings | Settings | Parley');
  await page.getByLabel('Organisation name').fill('Hopper Labs');
  await page.getByLabel('Support email').fill('not-an-email');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(fieldError(page, 'Enter a valid email address')).toBeVisible();
  await page.getByLabel('Support email').fill('help@hopper.test');
  await page.getByLabel('Default time zone').selectOption('Europe/Paris');
  await page.getByLabel('Language').selectOption({ label: 'French' });
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('toast')).toHaveText('Settings Updated');
  await expect(page.getByLabel('Organisation name')).toHaveValue('Hopper Labs');
  await expect(page.getByLabel('Default time zone')).toHaveValue('Europe/Paris');

  const agentContext = await browser.newContext();
  const agentPage = await agentContext.newPage();
  await signIn(agentPage, { domain: a.domain, email: agent.email, password: TEST_PASSWORD });
  await agentPage.goto(url('/settings/account-settings', a.domain));
  await expect(agentPage.getByTestId('locked-note')).toContainText('Your current roles does not allow to update. Please contact your account administrator.');
  await expect(agentPage.getByLabel('Organisation name')).toHaveValue('Hopper Labs');
  await expect(agentPage.getByLabel('Organisation name')).toBeDisabled();
  await expect(agentPage.getByRole('button', { name: /Save/ })).toBeDisabled();
  await agentContext.close();
});
