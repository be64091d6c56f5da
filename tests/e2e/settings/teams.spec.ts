import { expect, test, type Page } from '@playwright/test';
import { and, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { setAccountPlan } from '../../../app/models/accounts/accounts.server';
import { FEATURE_DENIED_MESSAGE } from '../../../app/models/plans/catalogue';
import { getTeam } from '../../../app/models/teams/teams.server';
import { createTestAccount, createTestUser } from '../../factories';
import { fieldError, signIn, toast, url } from '../helpers';

async function teamByName(accountId: number, name: string) {
  const [team] = await getDb()
    .select()
    .from(schema.teams)
    .where(and(eq(schema.teams.accountId, accountId), eq(schema.teams.name, name)));
  return team;
}

const teamsTable = (page: Page) => page.getByTestId('teams');
const member = (page: Page, firstName: string) => page.getByTestId('members').getByRole('checkbox', { name: new RegExp(`^${firstName} `) });

test('an owner creates, edits and deletes a team with members, without JavaScript', async ({ page }) => {
  const a = await createTestAccount();
  const nina = await createTestUser({ accountId: a.account.id, firstName: 'Nina' });
  const omar = await createTestUser({ accountId: a.account.id, firstName: 'Omar' });
  await signIn(page, a);
  await page.goto(url('/settings/teams', a.domain));
  await expect(page).toHaveTitle('Teams | Settings | Parley');
  await expect(page.getByTestId('empty')).toBeVisible();
  await page.getByRole('link', { name: 'Create Team' }).click();
  await expect(page).toHaveURL(url('/settings/teams/new', a.domain));

  await page.getByLabel('Team Name').fill('Night Shift');
  await page.getByLabel('Description').fill('Covers 22:00 to 06:00');
  await member(page, 'Nina').check();
  await member(page, 'Omar').check();
  await page.getByRole('button', { name: 'Create', exact: true }).click();

  await expect(page).toHaveURL(url('/settings/teams', a.domain));
  await expect(page.getByTestId('toast')).toHaveText('Team Created');
  const row = teamsTable(page).getByRole('row', { name: /Night Shift/ });
  await expect(row.getByRole('cell')).toHaveText(['Night Shift', 'Covers 22:00 to 06:00', '2', /^\d\d-\d\d-\d{4}$/]);
  const created = await teamByName(a.account.id, 'Night Shift');
  expect((await getTeam({ accountId: a.account.id, id: created.id }))?.memberIds.sort()).toEqual([nina.id, omar.id].sort());

  await row.getByRole('link', { name: 'Night Shift' }).click();
  await expect(page).toHaveURL(url(`/settings/teams/${created.id}`, a.domain));
  await expect(member(page, 'Nina')).toBeChecked();
  await expect(member(page, 'Omar')).toBeChecked();
  await expect(member(page, 'Olive')).not.toBeChecked();
  await page.getByLabel('Team Name').fill('Night Crew');
  await member(page, 'Omar').uncheck();
  await member(page, 'Olive').check();
  await page.getByRole('button', { name: 'Update', exact: true }).click();
  await expect(page).toHaveURL(url('/settings/teams', a.domain));
  await expect(page.getByTestId('toast')).toHaveText('Team Updated');
  await expect(teamsTable(page).getByRole('row', { name: /Night Crew/ }).getByRole('cell').nth(2)).toHaveText('2');
  expect((await getTeam({ accountId: a.account.id, id: created.id }))?.memberIds.sort()).toEqual([a.owner.id, nina.id].sort());

  await teamsTable(page).getByRole('link', { name: 'Night Crew' }).click();
  await page.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Are you sure you want to delete ?');
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(page).toHaveURL(url('/settings/teams', a.domain));
  await expect(page.getByTestId('toast')).toHaveText('Team Deleted');
  await expect(page.getByTestId('empty')).toBeVisible();
  expect(await getTeam({ accountId: a.account.id, id: created.id })).toBeUndefined();
});

test('the team form shows each validation message of the specification', async ({ page }) => {
  const a = await createTestAccount();
  await createTestUser({ accountId: a.account.id, firstName: 'Pia' });
  await signIn(page, a);
  await page.goto(url('/settings/teams/new', a.domain));
  const create = () => page.getByRole('button', { name: 'Create', exact: true }).click();

  await page.getByLabel('Team Name').fill('A');
  await create();
  await expect(fieldError(page, 'Length must be at least 2 characters')).toBeVisible();
  await expect(fieldError(page, 'Team member must be specified')).toBeVisible();
  await expect(page.getByLabel('Team Name')).toHaveValue('A');

  const longName = 'T'.repeat(21);
  await page.getByLabel('Team Name').fill(longName);
  await member(page, 'Pia').check();
  await create();
  await expect(fieldError(page, 'Length must be less than or equal to 20 characters')).toBeVisible();
  await expect(fieldError(page, 'Team member must be specified')).toHaveCount(0);
  await expect(page.getByLabel('Team Name')).toHaveValue(longName);
  await expect(member(page, 'Pia')).toBeChecked();

  // Spaces around the name do not count.
  await page.getByLabel('Team Name').fill('   B   ');
  await create();
  await expect(fieldError(page, 'Length must be at least 2 characters')).toBeVisible();
  expect(await getDb().select().from(schema.teams).where(eq(schema.teams.accountId, a.account.id))).toHaveLength(0);
});

test('on a plan without teams, the page says so and the menu marks Teams', async ({ page }) => {
  const a = await createTestAccount();
  await setAccountPlan({ domain: a.domain, planKey: 'starter' });
  await signIn(page, a);
  await page.goto(url('/settings/teams', a.domain));
  await expect(page).toHaveURL(/\/settings(\/my-profile)?$/);
  await expect(toast(page)).toHaveText(FEATURE_DENIED_MESSAGE);
  const teamsItem = page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: /Teams/ });
  await expect(teamsItem.locator('[data-denied="feature"]')).toBeVisible();
  await expect(teamsItem.locator('[data-denied="feature"]')).toHaveAttribute('title', FEATURE_DENIED_MESSAGE);
  // Roles stay open on that plan.
  await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Roles' }).click();
  await expect(page.getByTestId('roles')).toBeVisible();

  await page.goto(url('/settings/teams/new', a.domain));
  await expect(page).toHaveURL(/\/settings(\/my-profile)?$/);
  await expect(toast(page)).toHaveText(FEATURE_DENIED_MESSAGE);
});
