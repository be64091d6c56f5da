import { expect, test, type Page } from '@playwright/test';
import { and, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { ALL_PERMISSIONS, PERMISSION_GROUPS, ROLE_LOCKED_MESSAGE } from '../../../app/models/roles/permissions';
import { createRole } from '../../../app/models/roles/roles.server';
import { createTestAccount, createTestUser, TEST_PASSWORD } from '../../factories';
import { fieldError, hydrated, signIn, url } from '../helpers';

async function roleByName(accountId: number, name: string) {
  const [role] = await getDb()
    .select()
    .from(schema.roles)
    .where(and(eq(schema.roles.accountId, accountId), eq(schema.roles.name, name)));
  return role;
}

const box = (page: Page, permission: string) => page.getByRole('checkbox', { name: permission, exact: true });
const rolesTable = (page: Page) => page.getByTestId('roles');

test('an owner creates, edits and deletes a role without JavaScript', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/settings/roles', a.domain));
  await expect(page).toHaveTitle('Roles | Settings | Parley');
  await expect(rolesTable(page)).toContainText('Owner');
  await page.getByRole('link', { name: 'Create Role' }).click();
  await expect(page).toHaveURL(url('/settings/roles/new', a.domain));

  // Three columns of permission groups, every permission by its name.
  await expect(page.locator('.perm-grid > fieldset')).toHaveCount(Object.keys(PERMISSION_GROUPS).length);
  await expect(page.locator('.perm-grid input[type="checkbox"]')).toHaveCount(ALL_PERMISSIONS.length);

  await page.getByLabel('Role Name').fill('Supervisor');
  await page.getByLabel('Description').fill('Leads the night shift');
  // Without JavaScript each group button asks the server, which shows the form again with the group ticked.
  await page.getByRole('button', { name: 'Select all automation' }).click();
  await expect(box(page, 'manage_sla')).toBeChecked();
  await expect(page.getByLabel('Role Name')).toHaveValue('Supervisor');
  await page.getByRole('button', { name: 'Select all contacts' }).click();
  for (const p of ['manage_business_hours', 'manage_routings', 'manage_sla', 'manage_workflow_rules', 'manage_contacts', 'import_contacts', 'export_contacts']) {
    await expect(box(page, p)).toBeChecked();
  }
  await expect(box(page, 'manage_campaigns')).not.toBeChecked();
  await expect(page.getByLabel('Description')).toHaveValue('Leads the night shift');
  await box(page, 'import_contacts').uncheck();
  await page.getByRole('button', { name: 'Create', exact: true }).click();

  await expect(page).toHaveURL(url('/settings/roles', a.domain));
  await expect(page.getByTestId('toast')).toHaveText('Role Created');
  const row = rolesTable(page).getByRole('row', { name: /Supervisor/ });
  await expect(row).toContainText('Leads the night shift');
  await expect(row).toContainText('Custom');
  const created = await roleByName(a.account.id, 'Supervisor');
  expect(created.permissions).toEqual(['manage_business_hours', 'manage_routings', 'manage_sla', 'manage_workflow_rules', 'manage_contacts', 'export_contacts']);

  await row.getByRole('link', { name: 'Supervisor' }).click();
  await expect(page).toHaveURL(url(`/settings/roles/${created.id}`, a.domain));
  await expect(page.getByTestId('role-users')).toContainText('No user has this role.');
  await page.getByLabel('Role Name').fill('Night Lead');
  await page.getByRole('button', { name: 'Clear automation' }).click();
  await expect(box(page, 'manage_sla')).not.toBeChecked();
  await expect(box(page, 'export_contacts')).toBeChecked();
  await expect(page.getByLabel('Role Name')).toHaveValue('Night Lead');
  await box(page, 'manage_tags').check();
  await page.getByRole('button', { name: 'Update', exact: true }).click();
  await expect(page).toHaveURL(url('/settings/roles', a.domain));
  await expect(page.getByTestId('toast')).toHaveText('Role Updated');
  await expect(rolesTable(page)).toContainText('Night Lead');
  await expect(rolesTable(page)).not.toContainText('Supervisor');
  expect((await roleByName(a.account.id, 'Night Lead')).permissions).toEqual(['manage_contacts', 'export_contacts', 'manage_tags']);

  await rolesTable(page).getByRole('link', { name: 'Night Lead' }).click();
  await page.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Are you sure you want to delete ?');
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(page).toHaveURL(url('/settings/roles', a.domain));
  await expect(page.getByTestId('toast')).toHaveText('Role Deleted');
  await expect(rolesTable(page)).not.toContainText('Night Lead');
  expect(await roleByName(a.account.id, 'Night Lead')).toBeUndefined();
});

test('the role form shows each validation message of the specification', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/settings/roles/new', a.domain));
  const create = () => page.getByRole('button', { name: 'Create', exact: true }).click();

  await create();
  await expect(fieldError(page, 'Role Name is not allowed to be empty')).toBeVisible();
  await expect(fieldError(page, 'Select at least one permission')).toBeVisible();

  const longName = 'N'.repeat(41);
  const longDescription = 'd'.repeat(151);
  await page.getByLabel('Role Name').fill(longName);
  await page.getByLabel('Description').fill(longDescription);
  await box(page, 'manage_tags').check();
  await create();
  await expect(fieldError(page, 'Role Name should have a length of 40 characters or less')).toBeVisible();
  await expect(fieldError(page, 'Description length must be less than or equal to 150 characters')).toBeVisible();
  await expect(fieldError(page, 'Select at least one permission')).toHaveCount(0);
  // What was typed and ticked is shown back.
  await expect(page.getByLabel('Role Name')).toHaveValue(longName);
  await expect(page.getByLabel('Description')).toHaveValue(longDescription);
  await expect(box(page, 'manage_tags')).toBeChecked();

  await page.getByLabel('Role Name').fill('Only a name');
  await page.getByLabel('Description').fill('');
  await box(page, 'manage_tags').uncheck();
  // Enter in a text box saves (it does not press the first group's "Select all").
  await page.getByLabel('Role Name').press('Enter');
  await expect(fieldError(page, 'Select at least one permission')).toBeVisible();
  await expect(fieldError(page, 'Role Name is not allowed to be empty')).toHaveCount(0);
  expect(await roleByName(a.account.id, 'Only a name')).toBeUndefined();
});

test('an agent sees the role form locked', async ({ page }) => {
  const a = await createTestAccount();
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
  const role = await createRole({ accountId: a.account.id, actorId: a.owner.id, name: 'Reviewer', description: 'Reads reports', permissions: ['conversation_reports'] });
  await signIn(page, { domain: a.domain, email: agent.email, password: TEST_PASSWORD });
  await page.goto(url(`/settings/roles/${role.id}`, a.domain));

  await expect(page.getByTestId('locked-note')).toContainText(ROLE_LOCKED_MESSAGE);
  await expect(page.locator('h1 [data-denied="role"]')).toHaveAttribute('title', ROLE_LOCKED_MESSAGE);
  const save = page.getByRole('button', { name: /Update/ });
  await expect(save).toBeDisabled();
  await expect(save).toHaveAttribute('title', ROLE_LOCKED_MESSAGE);
  await expect(page.getByLabel('Role Name')).toBeDisabled();
  await expect(page.getByLabel('Role Name')).toHaveValue('Reviewer');
  await expect(box(page, 'conversation_reports')).toBeChecked();
  await expect(box(page, 'conversation_reports')).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Select all automation' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Delete' })).toBeDisabled();
});

test('with JavaScript the group buttons tick boxes in the page, and Create waits for a permission', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: true });
  const page = await context.newPage();
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/settings/roles/new', a.domain));
  await hydrated(page);
  const create = page.getByRole('button', { name: 'Create', exact: true });
  await expect(create).toBeDisabled();
  let posts = 0;
  page.on('request', (r) => {
    if (r.method() === 'POST') posts++;
  });
  await page.getByRole('button', { name: 'Select all reports' }).click();
  await expect(box(page, 'ecommerce_reports')).toBeChecked();
  await expect(create).toBeEnabled();
  await page.getByRole('button', { name: 'Clear reports' }).click();
  await expect(box(page, 'ecommerce_reports')).not.toBeChecked();
  await expect(create).toBeDisabled();
  expect(posts).toBe(0);
  await box(page, 'manage_surveys').check();
  await page.getByLabel('Role Name').fill('Surveyor');
  await create.click();
  await expect(page).toHaveURL(url('/settings/roles', a.domain));
  await expect(page.getByTestId('toast')).toHaveText('Role Created');
  expect((await roleByName(a.account.id, 'Surveyor')).permissions).toEqual(['manage_surveys']);
  await context.close();
});
