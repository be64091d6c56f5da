import { expect, test, type Page } from '@playwright/test';
import { createBusinessHours, listBusinessHours } from '../../../app/models/automation/business-hours.server';
import { ROLE_LOCKED_MESSAGE } from '../../../app/models/roles/permissions';
import { createTestAccount, createTestUser, TEST_PASSWORD } from '../../factories';
import { fieldError, hydrated, signIn, url } from '../helpers';

const toast = (page: Page) => page.getByTestId('toast');

test('business hours: create with a holiday and an extra period, the end-time error, edit and delete, without JavaScript', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/settings/business-hours', a.domain));
  await expect(page).toHaveTitle('Business Hours | Settings | Parley');
  await expect(page.getByTestId('empty')).toBeVisible();
  await page.getByRole('link', { name: 'Create Business Hours' }).click();
  await expect(page).toHaveURL(url('/settings/business-hours/new', a.domain));

  // Section 9 defaults: Monday to Friday checked, 09:00 to 18:00; both sections show without JavaScript.
  for (const day of ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday']) await expect(page.getByRole('checkbox', { name: day, exact: true })).toBeChecked();
  for (const day of ['Saturday', 'Sunday']) await expect(page.getByRole('checkbox', { name: day, exact: true })).not.toBeChecked();
  await expect(page.getByLabel('Monday period 1 start time')).toHaveValue('09:00');
  await expect(page.getByLabel('Monday period 1 end time')).toHaveValue('18:00');
  await expect(page.getByTestId('day-table')).toBeVisible();
  await expect(page.getByTestId('holidays')).toBeVisible();

  await page.getByLabel('Name', { exact: true }).fill('Paris office');
  await page.getByLabel('Timezone').selectOption('Europe/Paris');
  await page.getByRole('checkbox', { name: 'Holidays', exact: true }).check();

  // Adding rows re-renders the form with the draft kept and saves nothing.
  await page.getByRole('button', { name: 'Add a holiday' }).click();
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('Paris office');
  await expect(page.getByRole('checkbox', { name: 'Holidays', exact: true })).toBeChecked();
  await expect(page.getByLabel('Holiday Name')).toHaveAttribute('maxlength', '20');
  await page.getByLabel('Holiday Name').fill('Christmas');
  await page.getByLabel('Date').fill('2026-12-25');
  await page.getByRole('button', { name: 'Add a period to Monday' }).click();
  await expect(page.getByLabel('Holiday Name')).toHaveValue('Christmas');
  await page.getByLabel('Monday period 2 start time').fill('19:00');
  await page.getByLabel('Monday period 2 end time').fill('21:00');

  await page.getByLabel('Wednesday period 1 end time').fill('08:00');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, 'End time cannot be before start time')).toBeVisible();
  await expect(page.getByLabel('Wednesday period 1 end time')).toHaveValue('08:00');
  await expect(page.getByLabel('Monday period 2 start time')).toHaveValue('19:00');
  await page.getByLabel('Wednesday period 1 end time').fill('18:00');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(toast(page)).toHaveText('Business Hours Created');
  await expect(page).toHaveURL(url('/settings/business-hours', a.domain));
  const row = page.getByTestId('business-hours').getByRole('row', { name: /Paris office/ });
  await expect(row).toContainText('Europe/Paris');
  await expect(row).toContainText('Mon, Tue, Wed, Thu, Fri');

  await page.getByTestId('business-hours').getByRole('link', { name: 'Paris office' }).click();
  await expect(page.getByLabel('Monday period 2 start time')).toHaveValue('19:00');
  await expect(page.getByLabel('Monday period 2 end time')).toHaveValue('21:00');
  await expect(page.getByLabel('Holiday Name')).toHaveValue('Christmas');
  await expect(page.getByLabel('Date')).toHaveValue('2026-12-25');
  await page.getByLabel('Name', { exact: true }).fill('Always open');
  await page.getByRole('checkbox', { name: /24x7/ }).check();
  await page.getByRole('button', { name: 'Update', exact: true }).click();
  await expect(toast(page)).toHaveText('Business Hours Updated');
  await expect(page.getByTestId('business-hours').getByRole('row', { name: /Always open/ })).toContainText('24x7');

  await page.getByTestId('business-hours').getByRole('link', { name: 'Always open' }).click();
  await page.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Are you sure you want to delete ?');
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(toast(page)).toHaveText('Business Hours Deleted');
  await expect(page.getByTestId('empty')).toBeVisible();
});

test('business hours are locked for roles without manage_business_hours', async ({ page }) => {
  const a = await createTestAccount();
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
  const hours = await createBusinessHours({
    accountId: a.account.id,
    actorId: a.owner.id,
    name: 'Front desk',
    timezone: 'Europe/Paris',
    allDay: false,
    haveHolidays: false,
    timings: [{ day: 1, startTime: '09:00', endTime: '18:00' }],
    holidays: [],
  });
  await signIn(page, { domain: a.domain, email: agent.email, password: TEST_PASSWORD });
  await page.goto(url('/settings/business-hours', a.domain));
  await expect(page.getByTestId('locked-note')).toContainText(ROLE_LOCKED_MESSAGE);
  await page.getByRole('link', { name: 'Front desk' }).click();
  await expect(page).toHaveURL(url(`/settings/business-hours/${hours.id}`, a.domain));
  await expect(page.getByRole('button', { name: /Update/ })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Delete' })).toBeDisabled();
});

test.describe('with JavaScript', () => {
  test.use({ javaScriptEnabled: true });

  test('24x7 hides the day table, holidays show only when enabled, rows are added in place', async ({ page }) => {
    const a = await createTestAccount();
    await signIn(page, a);
    await page.goto(url('/settings/business-hours/new', a.domain));
    await hydrated(page);
    await expect(page.getByTestId('day-table')).toBeVisible();
    await expect(page.getByTestId('holidays')).toBeHidden();
    await page.getByRole('checkbox', { name: /24x7/ }).check();
    await expect(page.getByTestId('day-table')).toBeHidden();
    await page.getByRole('checkbox', { name: /24x7/ }).uncheck();
    await expect(page.getByTestId('day-table')).toBeVisible();
    await page.getByRole('checkbox', { name: 'Holidays', exact: true }).check();
    await expect(page.getByTestId('holidays')).toBeVisible();

    await page.getByLabel('Name', { exact: true }).fill('Split shifts');
    await page.getByLabel('Timezone').selectOption('Europe/Paris');
    await page.getByRole('button', { name: 'Add a period to Tuesday' }).click();
    await page.getByLabel('Tuesday period 1 end time').fill('12:00');
    await page.getByLabel('Tuesday period 2 start time').fill('14:00');
    await page.getByRole('button', { name: 'Add a holiday' }).click();
    await page.getByLabel('Holiday Name').fill('Bastille Day');
    await page.getByLabel('Date').fill('2027-07-14');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await expect(toast(page)).toHaveText('Business Hours Created');
    const [saved] = (await listBusinessHours({ accountId: a.account.id })).rows;
    expect(saved).toMatchObject({ name: 'Split shifts', haveHolidays: true, holidays: [{ name: 'Bastille Day', dateVal: '2027-07-14' }] });
    expect(saved.timings.filter((t) => t.day === 2)).toEqual([
      { day: 2, startTime: '09:00', endTime: '12:00' },
      { day: 2, startTime: '14:00', endTime: '18:00' },
    ]);
  });
});
