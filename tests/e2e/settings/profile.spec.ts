import { expect, test } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { formatDateTime } from '../../../app/utils/format';
import { createTestAccount } from '../../factories';
import { makePng } from '../../helpers/png';
import { fieldError, signIn, url } from '../helpers';

test('names, date and time format: the users list then shows dates that way', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, { domain: a.domain, email: a.email, password: a.password });
  await page.goto(url('/settings/my-profile', a.domain));
  await expect(page).toHaveTitle('My Profile | Settings | Parley');

  await page.getByLabel('First name').fill('G');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(fieldError(page, 'Length must be at least 2 characters')).toBeVisible();

  await page.getByLabel('First name').fill('Grace');
  await page.getByLabel('Last name').fill('Hopper');
  await page.getByLabel('Date format').selectOption('YYYY/MM/DD');
  await page.getByLabel('Time format').selectOption('24');
  await page.getByLabel('Time zone').selectOption('Asia/Tokyo');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('toast')).toHaveText('Profile Updated');
  await expect(page.getByLabel('First name')).toHaveValue('Grace');
  await expect(page.getByLabel('Date format')).toHaveValue('YYYY/MM/DD');

  const [owner] = await getDb().select().from(schema.users).where(eq(schema.users.id, a.owner.id));
  const expected = formatDateTime(owner.lastSignInAt, { dateFormat: 'YYYY/MM/DD', timeFormat: '24', timezone: 'Asia/Tokyo' });
  expect(expected).toMatch(/^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}$/);
  await page.goto(url('/settings/users', a.domain));
  const row = page.getByTestId('users-table').locator('tbody tr', { hasText: a.email });
  await expect(row).toContainText('Grace Hopper');
  await expect(row).toContainText(expected);
});

test('uploads a PNG avatar, removes it, and refuses a text file named .png', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, { domain: a.domain, email: a.email, password: a.password });
  await page.goto(url('/settings/my-profile', a.domain));

  await page.getByLabel('Picture').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: makePng(12, 12) });
  await page.getByRole('button', { name: 'Upload' }).click();
  await expect(page.getByTestId('toast')).toHaveText('Profile Updated');
  const img = page.getByTestId('avatar-preview').locator(`img[src="/avatars/${a.owner.id}"]`);
  await expect(img).toBeVisible();
  await expect(img).toHaveJSProperty('naturalWidth', 12);
  const served = await page.goto(url(`/avatars/${a.owner.id}`, a.domain));
  expect(served?.status()).toBe(200);
  expect(served?.headers()['content-type']).toBe('image/png');
  await page.goto(url('/settings/my-profile', a.domain));

  await page.getByRole('button', { name: 'Remove picture' }).click();
  await expect(page.getByTestId('toast')).toHaveText('Avatar Deleted');
  await expect(page.getByTestId('avatar-preview').locator('img')).toHaveCount(0);
  expect((await page.goto(url(`/avatars/${a.owner.id}`, a.domain)))?.status()).toBe(404);
  await page.goto(url('/settings/my-profile', a.domain));

  await page.getByLabel('Picture').setInputFiles({ name: 'notes.png', mimeType: 'image/png', buffer: Buffer.from('just some text, not an image\n') });
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST'),
    page.getByRole('button', { name: 'Upload' }).click(),
  ]);
  expect(response.status()).toBe(400);
  await expect(fieldError(page, 'Only JPEG and PNG images are allowed')).toBeVisible();
  const [after] = await getDb().select({ avatarType: schema.users.avatarType }).from(schema.users).where(eq(schema.users.id, a.owner.id));
  expect(after.avatarType).toBeNull();
});

test('changes the password and signs in with the new one', async ({ page, context }) => {
  const a = await createTestAccount();
  await signIn(page, { domain: a.domain, email: a.email, password: a.password });
  await page.goto(url('/settings/my-profile', a.domain));

  await page.getByLabel('Current password').fill('not-my-password');
  await page.getByLabel('New password', { exact: true }).fill('a-brand-new-password');
  await page.getByLabel('Confirm new password').fill('a-brand-new-password');
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(fieldError(page, 'Current password is incorrect')).toBeVisible();

  await page.getByLabel('Current password').fill(a.password);
  await page.getByLabel('New password', { exact: true }).fill('a-brand-new-password');
  await page.getByLabel('Confirm new password').fill('a-brand-new-password');
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByTestId('toast')).toHaveText('Password Changed');
  // This session stays signed in.
  await page.goto(url('/home', a.domain));
  await expect(page).toHaveURL(url('/home', a.domain));

  await context.clearCookies();
  await page.goto(url('/signin', a.domain));
  await page.getByLabel('Email').fill(a.email);
  await page.getByLabel('Password').fill(a.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('Invalid email or password');
  await signIn(page, { domain: a.domain, email: a.email, password: 'a-brand-new-password' });
});

test('notification preferences are saved', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, { domain: a.domain, email: a.email, password: a.password });
  await page.goto(url('/settings/notification', a.domain));
  await expect(page.getByLabel('Email me when a conversation is assigned to me')).toBeChecked();
  await page.getByLabel('Email me when a conversation is assigned to me').uncheck();
  await page.getByLabel('Browser push notifications').check();
  await page.getByRole('button', { name: 'Save' }).click();
  // Saved; without JavaScript this browser cannot be subscribed, and the toast says no browser shows them yet (ADR 155).
  await expect(page.getByTestId('toast')).toHaveText(
    'Settings Updated. No browser shows your desktop notifications yet: they need JavaScript in the browser that should show them.',
  );
  await expect(page.getByLabel('Email me when a conversation is assigned to me')).not.toBeChecked();
  await expect(page.getByLabel('Browser push notifications')).toBeChecked();
});
