import { expect, test, type Page } from '@playwright/test';
import { ROLE_LOCKED_MESSAGE } from '../../../app/models/roles/permissions';
import { createTrustedDomain } from '../../../app/models/email/trusted-domains.server';
import { createTestAccount, createTestUser, TEST_PASSWORD } from '../../factories';
import { fieldError, signIn, url } from '../helpers';

const toast = (page: Page) => page.getByTestId('toast');

test('trusted domains: the specification validation, create, edit and delete, without JavaScript', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/settings/trusted-domain', a.domain));
  await expect(page).toHaveTitle('Trusted Domain | Settings | Parley');
  await expect(page.getByTestId('empty')).toBeVisible();
  await page.getByRole('link', { name: 'Add Trusted Domain' }).click();
  await expect(page).toHaveURL(url('/settings/trusted-domain/new', a.domain));
  await expect(page.getByLabel('Domain URL')).toHaveAttribute('maxlength', '60');

  await page.getByLabel('Domain Name').fill('Acme');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, 'Domain URL is not allowed to be empty')).toBeVisible();

  // Private and local addresses are refused, as is anything that is not a URL.
  for (const bad of ['http://192.168.1.10', 'localhost:8080', 'not a url']) {
    await page.getByLabel('Domain URL').fill(bad);
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await expect(fieldError(page, 'Enter a valid URL')).toBeVisible();
    await expect(page.getByLabel('Domain URL')).toHaveValue(bad);
  }
  await page.getByLabel('Domain Name').fill('D'.repeat(16));
  await page.getByLabel('Domain URL').fill('https://www.acme.test/support');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, 'Length must be less than or equal to 15 characters')).toBeVisible();

  await page.getByLabel('Domain Name').fill('Acme');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(toast(page)).toHaveText('Trusted Domain Created');
  await expect(page).toHaveURL(url('/settings/trusted-domain', a.domain));
  await expect(page.getByTestId('trusted-domains').getByRole('row', { name: /Acme/ }).getByRole('cell').nth(1)).toHaveText('https://www.acme.test/support');

  // The same domain twice is refused.
  await page.goto(url('/settings/trusted-domain/new', a.domain));
  await page.getByLabel('Domain Name').fill('Again');
  await page.getByLabel('Domain URL').fill('acme.test');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, 'This domain is already trusted')).toBeVisible();

  await page.goto(url('/settings/trusted-domain', a.domain));
  await page.getByTestId('trusted-domains').getByRole('link', { name: 'Acme' }).click();
  await expect(page.getByLabel('Domain URL')).toHaveValue('https://www.acme.test/support');
  await page.getByLabel('Domain Name').fill('Acme Partners');
  await page.getByLabel('Domain URL').fill('partners.acme.test');
  await page.getByRole('button', { name: 'Update', exact: true }).click();
  await expect(toast(page)).toHaveText('Trusted Domain Updated');
  await expect(page.getByTestId('trusted-domains')).toContainText('partners.acme.test');

  await page.getByTestId('trusted-domains').getByRole('link', { name: 'Acme Partners' }).click();
  await page.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Are you sure you want to delete ?');
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(toast(page)).toHaveText('Trusted Domain Deleted');
  await expect(page.getByTestId('empty')).toBeVisible();
});

test('trusted domains are locked for roles without manage_trusted_domains', async ({ page }) => {
  const a = await createTestAccount();
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
  const domain = await createTrustedDomain({ accountId: a.account.id, actorId: a.owner.id, domainName: 'Acme', domainUrl: 'acme.test' });
  await signIn(page, { domain: a.domain, email: agent.email, password: TEST_PASSWORD });
  await page.goto(url('/settings/trusted-domain', a.domain));
  await expect(page.getByTestId('locked-note')).toContainText(ROLE_LOCKED_MESSAGE);
  await page.getByRole('link', { name: 'Acme' }).click();
  await expect(page).toHaveURL(url(`/settings/trusted-domain/${domain.id}`, a.domain));
  await expect(page.getByRole('button', { name: /Update/ })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Delete' })).toBeDisabled();
});
