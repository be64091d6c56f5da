import { expect, test } from '@playwright/test';
import { createTestAccount } from '../../factories';
import { startRadicale } from '../../helpers/radicale';
import { signIn, url } from '../helpers';

// A real CalDAV server (Debian's Radicale, installed by .ci/run); the agent connects it without JavaScript.
test.use({ javaScriptEnabled: false });
let radicale: Awaited<ReturnType<typeof startRadicale>>;
test.beforeAll(async () => {
  radicale = await startRadicale();
});
test.afterAll(async () => {
  await radicale.close();
});

test('connect a CalDAV calendar: a wrong password is refused on its field with what was typed kept, then it connects and disconnects (no JavaScript)', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/settings/meetings', a.domain));
  const form = page.getByTestId('caldav-form');
  await form.getByLabel('Calendar address').fill(radicale.calendarUrl);
  await form.getByLabel('User name').fill(radicale.username);
  await form.getByLabel('Password').fill('not the password');
  const refused = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/settings/meetings'));
  await form.getByRole('button', { name: 'Connect CalDAV calendar' }).click();
  expect((await refused).status()).toBe(400);
  await expect(page.locator('#caldav-password-error')).toBeVisible();
  await expect(page.getByTestId('caldav-form').getByLabel('Calendar address')).toHaveValue(radicale.calendarUrl);
  await expect(page.getByTestId('caldav-connected')).toHaveCount(0);

  await page.getByTestId('caldav-form').getByLabel('Password').fill(radicale.password);
  await page.getByTestId('caldav-form').getByRole('button', { name: 'Connect CalDAV calendar' }).click();
  await expect(page.getByTestId('caldav-connected')).toContainText(radicale.calendarUrl);
  await expect(page.locator('body')).not.toContainText(radicale.password);

  await page.getByRole('button', { name: 'Disconnect CalDAV' }).click();
  await expect(page.getByTestId('caldav-form')).toBeVisible();
});
