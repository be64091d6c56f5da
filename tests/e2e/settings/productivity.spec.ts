import { expect, test, type Page } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { ROLE_LOCKED_MESSAGE } from '../../../app/models/roles/permissions';
import { listCannedResponses } from '../../../app/models/productivity/canned-responses.server';
import { listEmailTemplates } from '../../../app/models/productivity/email-templates.server';
import { createTag, listTags } from '../../../app/models/productivity/tags.server';
import { createTestAccount, createTestUser, TEST_PASSWORD } from '../../factories';
import { fieldError, signIn, url } from '../helpers';

const toast = (page: Page) => page.getByTestId('toast');

/** Opens the delete confirmation (a popover, no script needed) and confirms. */
async function confirmDelete(page: Page) {
  await page.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Are you sure you want to delete ?');
  await dialog.getByRole('button', { name: 'Delete' }).click();
}

test('tags: create, edit and delete without JavaScript, with colours and counts', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/settings/tags', a.domain));
  await expect(page).toHaveTitle('Tags | Settings | Parley');
  await expect(page.getByTestId('empty')).toBeVisible();
  await page.getByRole('link', { name: 'Create Tag' }).click();
  await expect(page).toHaveURL(url('/settings/tags/new', a.domain));

  // The colour options of section 3, in order.
  await expect(page.getByLabel('Colour').locator('option')).toHaveText(['Red', 'Orange', 'Yellow', 'Olive', 'Green', 'Teal', 'Blue', 'Violet', 'Purple', 'Brown', 'Grey']);
  await page.getByLabel('Tag Name').fill('T'.repeat(21));
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, 'Length must be less than or equal to 20 characters')).toBeVisible();
  await expect(page.getByLabel('Tag Name')).toHaveValue('T'.repeat(21));

  await page.getByLabel('Tag Name').fill('Billing');
  await page.getByLabel('Colour').selectOption('orange');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page).toHaveURL(url('/settings/tags', a.domain));
  await expect(toast(page)).toHaveText('Tag Created');
  const row = page.getByTestId('tags').getByRole('row', { name: /Billing/ });
  await expect(row.getByRole('cell')).toHaveText(['Billing', 'orange', '0']);

  // The same name in another case is refused.
  await page.goto(url('/settings/tags/new', a.domain));
  await page.getByLabel('Tag Name').fill('BILLING');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, 'A tag with this name already exists')).toBeVisible();

  await page.goto(url('/settings/tags', a.domain));
  await page.getByTestId('tags').getByRole('link', { name: 'Billing' }).click();
  await expect(page.getByLabel('Colour')).toHaveValue('orange');
  await page.getByLabel('Tag Name').fill('Invoices');
  await page.getByLabel('Colour').selectOption('teal');
  await page.getByRole('button', { name: 'Update', exact: true }).click();
  await expect(toast(page)).toHaveText('Tag Updated');
  await expect(page.getByTestId('tags').getByRole('row', { name: /Invoices/ }).getByRole('cell')).toHaveText(['Invoices', 'teal', '0']);

  // Search is a GET parameter.
  await createTag({ accountId: a.account.id, actorId: null, name: 'Refunds', color: 'red' });
  await page.getByRole('searchbox', { name: 'Search tags' }).fill('ref');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page).toHaveURL(url('/settings/tags?q=ref', a.domain));
  await expect(page.getByTestId('tags').getByRole('link')).toHaveText(['Refunds']);
  await page.getByRole('link', { name: 'Clear' }).click();
  await expect(page.getByTestId('tags').getByRole('link')).toHaveText(['Invoices', 'Refunds']);

  await page.getByTestId('tags').getByRole('link', { name: 'Invoices' }).click();
  await confirmDelete(page);
  await expect(page).toHaveURL(url('/settings/tags', a.domain));
  await expect(toast(page)).toHaveText('Tag Deleted');
  expect((await listTags({ accountId: a.account.id })).map((t) => t.name)).toEqual(['Refunds']);
});

test('canned responses: the validation messages, then create, edit and delete without JavaScript', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/settings/canned-responses', a.domain));
  await expect(page).toHaveTitle('Canned Responses | Settings | Parley');
  await page.getByRole('link', { name: 'Create Canned Response' }).click();
  const create = () => page.getByRole('button', { name: 'Create', exact: true }).click();

  await create();
  await expect(fieldError(page, 'Name is not allowed to be empty')).toBeVisible();
  await expect(fieldError(page, 'Message is not allowed to be empty')).toBeVisible();

  // Section 5: name at most 30, message at most 140, with the generic length message.
  const longName = 'N'.repeat(31);
  const longMessage = 'M'.repeat(141);
  await page.getByLabel('Name').fill(longName);
  await page.getByLabel('Message').fill(longMessage);
  await create();
  await expect(fieldError(page, 'Length must be less than or equal to 30 characters')).toBeVisible();
  await expect(fieldError(page, 'Length must be less than or equal to 140 characters')).toBeVisible();
  await expect(page.getByLabel('Name')).toHaveValue(longName);
  await expect(page.getByLabel('Message')).toHaveValue(longMessage);
  expect(await listCannedResponses({ accountId: a.account.id })).toHaveLength(0);

  await page.getByLabel('Name').fill('Greeting');
  await page.getByLabel('Message').fill('Hello! Thanks for reaching out.');
  await create();
  await expect(page).toHaveURL(url('/settings/canned-responses', a.domain));
  await expect(toast(page)).toHaveText('Canned Response Created');
  await expect(page.getByTestId('canned-responses').getByRole('row', { name: /Greeting/ })).toContainText('Hello! Thanks for reaching out.');

  await page.getByTestId('canned-responses').getByRole('link', { name: 'Greeting' }).click();
  await expect(page.getByLabel('Message')).toHaveValue('Hello! Thanks for reaching out.');
  await page.getByLabel('Message').fill('Hi there, how can we help?');
  await page.getByRole('button', { name: 'Update', exact: true }).click();
  await expect(toast(page)).toHaveText('Canned Response Updated');
  await expect(page.getByTestId('canned-responses')).toContainText('Hi there, how can we help?');

  await page.getByTestId('canned-responses').getByRole('link', { name: 'Greeting' }).click();
  await confirmDelete(page);
  await expect(toast(page)).toHaveText('Canned Response Deleted');
  await expect(page.getByTestId('empty')).toBeVisible();
});

test('email templates: create, edit and delete without JavaScript', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/settings/email-templates/new', a.domain));
  await expect(page.getByTestId('placeholders')).toHaveText('Placeholders: {{firstName}}, {{lastName}}, {{email}}, {{address}}');
  await page.getByLabel('Name').fill('Welcome');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, 'Body is not allowed to be empty')).toBeVisible();
  await expect(page.getByLabel('Name')).toHaveValue('Welcome');

  await page.getByLabel('Subject').fill('Welcome aboard, {{firstName}}');
  await page.getByLabel('Body').fill('Dear {{firstName}} {{lastName}},\n\nwelcome!');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(toast(page)).toHaveText('Email Template Created');
  await expect(page.getByTestId('email-templates').getByRole('row', { name: /Welcome/ })).toContainText('Welcome aboard, {{firstName}}');

  await page.getByTestId('email-templates').getByRole('link', { name: 'Welcome' }).click();
  await expect(page.getByLabel('Body')).toHaveValue('Dear {{firstName}} {{lastName}},\n\nwelcome!');
  await page.getByLabel('Name').fill('Welcome mail');
  await page.getByRole('button', { name: 'Update', exact: true }).click();
  await expect(toast(page)).toHaveText('Email Template Updated');
  const [tpl] = await listEmailTemplates({ accountId: a.account.id });
  expect(tpl).toMatchObject({ name: 'Welcome mail', subject: 'Welcome aboard, {{firstName}}' });

  await page.getByTestId('email-templates').getByRole('link', { name: 'Welcome mail' }).click();
  await confirmDelete(page);
  await expect(toast(page)).toHaveText('Email Template Deleted');
  expect(await listEmailTemplates({ accountId: a.account.id })).toHaveLength(0);
});

test('without the permission the pages are shown locked', async ({ page }) => {
  const a = await createTestAccount();
  const [role] = await getDb().insert(schema.roles).values({ accountId: a.account.id, name: 'Reader', permissions: [] }).returning();
  const reader = await createTestUser({ accountId: a.account.id, roleId: role.id });
  const tag = await createTag({ accountId: a.account.id, actorId: null, name: 'Escalated', color: 'red' });
  await signIn(page, { domain: a.domain, email: reader.email, password: TEST_PASSWORD });
  await page.goto(url('/settings/tags', a.domain));
  await expect(page.getByTestId('locked-note')).toContainText(ROLE_LOCKED_MESSAGE);
  const menuItem = page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: /Tags/ });
  await expect(menuItem.locator('[data-denied="role"]')).toBeVisible();
  await page.getByTestId('tags').getByRole('link', { name: 'Escalated' }).click();
  await expect(page.getByLabel('Tag Name')).toBeDisabled();
  const save = page.getByRole('button', { name: /Update/ });
  await expect(save).toBeDisabled();
  await expect(save).toHaveAttribute('title', ROLE_LOCKED_MESSAGE);
  await expect(page.getByRole('button', { name: 'Delete' }).first()).toBeDisabled();
  expect((await getDb().select().from(schema.tags).where(eq(schema.tags.id, tag.id)))[0].name).toBe('Escalated');
});
