import { expect, test, type Page } from '@playwright/test';
import { createCompany, getCompany } from '../../../app/models/crm/companies.server';
import { createContact, getContact, listContacts } from '../../../app/models/crm/contacts.server';
import { createTag } from '../../../app/models/productivity/tags.server';
import { createTestAccount } from '../../factories';
import { fieldError, signIn, url } from '../helpers';

const toast = (page: Page) => page.getByTestId('toast');

test('contacts: create and edit with every validation message, then a note (JavaScript off)', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/customers', a.domain));
  await expect(page).toHaveTitle('Contacts | CRM | Parley');
  await expect(page.getByRole('navigation', { name: 'CRM' })).toContainText('Live View');
  await expect(page.getByRole('navigation', { name: 'CRM' })).toContainText('Meetings');
  await page.getByRole('link', { name: 'New Contact', exact: true }).click();

  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, 'First Name is required')).toBeVisible();
  await expect(fieldError(page, 'Last Name is required')).toBeVisible();
  await expect(fieldError(page, 'Email is required')).toBeVisible();

  await page.getByLabel('First Name').fill('Ada');
  await page.getByLabel('Last Name').fill('Lovelace');
  await page.getByLabel('Email').fill('ada@engines.test');
  await page.getByLabel('Phone').fill('12345678901234567');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, 'Length must be less than or equal to 16 characters')).toBeVisible();
  await expect(page.getByLabel('First Name')).toHaveValue('Ada');
  await page.getByLabel('Phone').fill('12ab');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, 'Enter a valid phone number')).toBeVisible();
  await page.getByLabel('Phone').fill('441234567');
  await page.getByLabel('Company Domain').fill('bad domain');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, 'Invalid Domain')).toBeVisible();
  await page.getByLabel('Company Domain').fill('engines.test');
  await page.getByLabel('Company Name').fill('Engines');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(toast(page)).toHaveText('Created');
  await expect(page).toHaveURL(/\/customers\/\d+$/);
  const id = Number(page.url().split('/').pop());

  // The second form.
  await expect(page.getByLabel('Company Name')).toHaveValue('Engines');
  await page.getByLabel('Website').fill('x');
  await page.getByRole('button', { name: 'Update' }).click();
  await expect(fieldError(page, 'Length must be at least 2 characters')).toBeVisible();
  await page.getByLabel('Website').fill('not a uri');
  await page.getByRole('button', { name: 'Update' }).click();
  await expect(fieldError(page, 'Website should have a valid uri')).toBeVisible();
  await page.getByLabel('Company Name').fill('E');
  await page.getByRole('button', { name: 'Update' }).click();
  await expect(fieldError(page, 'Length must be at least 2 characters')).toBeVisible();
  await page.getByLabel('Company Name').fill('E'.repeat(21));
  await page.getByRole('button', { name: 'Update' }).click();
  await expect(fieldError(page, 'Length must be less than or equal to 20 characters')).toBeVisible();
  await page.getByLabel('Company Name').fill('Engines');
  await page.getByLabel('Website').fill('https://ada.test');
  await page.getByLabel('Last Name').fill('King');
  await page.getByLabel('Country').selectOption({ label: 'United Kingdom' });
  await page.getByLabel('Locality').fill('London');
  await page.getByRole('button', { name: 'Update' }).click();
  await expect(toast(page)).toHaveText('Contact Updated');
  await expect(page.getByLabel('Country')).toHaveValue('GB');
  const saved = await getContact({ accountId: a.account.id, id });
  expect(saved).toMatchObject({ lastName: 'King', country: 'GB', website: 'https://ada.test' });

  await page.getByLabel('Add a note').fill('x');
  await page.getByRole('button', { name: 'Add Note' }).click();
  await expect(fieldError(page, 'Length must be at least 2 characters')).toBeVisible();
  await page.getByLabel('Add a note').fill('Asked about the analytical engine');
  await page.getByRole('button', { name: 'Add Note' }).click();
  await expect(toast(page)).toHaveText('Note Added');
  await expect(page.getByTestId('notes')).toContainText('Asked about the analytical engine');
  await expect(page.getByTestId('timeline')).toContainText('Contact created');

  await page.goto(url('/customers', a.domain));
  const row = page.getByTestId('contacts').getByRole('row', { name: /Ada King/ });
  await expect(row).toContainText('ada@engines.test');
  await expect(row).toContainText('Engines');
  await expect(row).toContainText('United Kingdom');
});

test('contacts: filter, tag in bulk, favourite and delete in bulk (JavaScript off)', async ({ page }) => {
  const a = await createTestAccount();
  const who = { accountId: a.account.id, actorId: a.owner.id };
  const one = await createContact({ ...who, input: { firstName: 'Uno', lastName: 'First', email: 'uno@x.test' } });
  const two = await createContact({ ...who, input: { firstName: 'Dos', lastName: 'Second', email: 'dos@x.test' } });
  await createContact({ ...who, input: { firstName: 'Tres', lastName: 'Third', email: 'tres@x.test' } });
  await createTag({ ...who, name: 'Priority', color: 'red' });
  await signIn(page, a);
  await page.goto(url('/customers', a.domain));
  const table = page.getByTestId('contacts');
  await expect(table.getByRole('row')).toHaveCount(4);
  await expect(page.getByRole('link', { name: 'Import', exact: true })).toHaveAttribute('href', '/customers/import');
  await expect(page.getByRole('link', { name: 'Export', exact: true })).toHaveAttribute('href', '/customers/export');

  await page.getByLabel('Search contacts').fill('second');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(table.getByRole('row')).toHaveCount(2);
  await page.getByRole('link', { name: 'Clear' }).click();

  await page.getByLabel(`Select ${one.id}`).check();
  await page.getByLabel(`Select ${two.id}`).check();
  await page.getByLabel('Tag to add').selectOption({ label: 'Priority' });
  await page.getByRole('button', { name: 'Tag selected' }).click();
  await expect(toast(page)).toHaveText('Contact Updated');
  await expect(table.getByRole('row', { name: /Uno First/ })).toContainText('Priority');
  await page.getByLabel('Filter by tag').selectOption({ label: 'Priority' });
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(table.getByRole('row')).toHaveCount(3);

  await table.getByRole('row', { name: /Uno First/ }).getByRole('button', { name: 'Add to favourites' }).click();
  await expect(toast(page)).toHaveText('Contact Updated');
  await expect(table.getByRole('row', { name: /Uno First/ }).getByRole('button', { name: 'Remove from favourites' })).toBeVisible();

  await page.getByLabel(`Select ${one.id}`).check();
  await page.getByLabel(`Select ${two.id}`).check();
  await page.getByRole('button', { name: 'Delete selected' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Are you sure you want to delete ?');
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(toast(page)).toHaveText('Deleted');
  await page.goto(url('/customers', a.domain));
  await expect(table.getByRole('row')).toHaveCount(2);
  expect((await listContacts({ accountId: a.account.id, filters: {} })).rows.map((r) => r.firstName)).toEqual(['Tres']);
});

test('companies: create with validation, bind contacts by domain, note, delete (JavaScript off)', async ({ page }) => {
  const a = await createTestAccount();
  const who = { accountId: a.account.id, actorId: a.owner.id };
  const wendy = await createContact({ ...who, input: { firstName: 'Wendy', lastName: 'Wayne', email: 'wendy@wayne.test' } });
  await signIn(page, a);
  await page.goto(url('/customers/companies', a.domain));
  await page.getByRole('link', { name: 'New Company', exact: true }).click();
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, 'Name is required')).toBeVisible();
  await page.getByLabel('Name', { exact: true }).fill('Wayne Enterprises');
  await page.getByLabel('Domain', { exact: true }).fill('not a domain');
  await page.getByLabel('Url').fill('nope');
  await page.getByLabel('Description').fill('x');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, 'Invalid Domain')).toBeVisible();
  await expect(fieldError(page, 'Url should have a valid domain')).toBeVisible();
  await expect(fieldError(page, 'Length must be at least 2 characters')).toBeVisible();
  await page.getByLabel('Description').fill('x'.repeat(161));
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, 'Length must be less than or equal to 160 characters')).toBeVisible();
  await page.getByLabel('Domain', { exact: true }).fill('wayne.test');
  await page.getByLabel('Url').fill('https://wayne.test');
  await page.getByLabel('Description').fill('Gotham industry');
  await page.getByLabel('Bind contacts with this domain').check();
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(toast(page)).toHaveText('Company Created');
  await expect(page.getByTestId('company-contacts')).toContainText('wendy@wayne.test');
  const companyId = Number(page.url().split('/').pop());
  expect((await getContact({ accountId: a.account.id, id: wendy.id }))?.companyId).toBe(companyId);

  await page.getByLabel('Add a note').fill('Renewal in May');
  await page.getByRole('button', { name: 'Add Note' }).click();
  await expect(toast(page)).toHaveText('Note Added');
  await expect(page.getByTestId('notes')).toContainText('Renewal in May');

  await page.getByLabel('Description').fill('Gotham');
  await page.getByRole('button', { name: 'Update' }).click();
  await expect(toast(page)).toHaveText('Updated');

  const other = await createCompany({ ...who, input: { name: 'Acme' } });
  await page.goto(url('/customers/companies', a.domain));
  await expect(page.getByTestId('companies').getByRole('row')).toHaveCount(3);
  await page.getByRole('link', { name: 'Acme' }).click();
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(toast(page)).toHaveText('Deleted');
  await expect(page).toHaveURL(url('/customers/companies', a.domain));
  expect(await getCompany({ accountId: a.account.id, id: other.id })).toBeUndefined();
});
