import { expect, test } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { totpCode } from '../../../app/models/auth/totp.server';
import { createTestAccount } from '../../factories';
import { hydrated, signIn, url } from '../helpers';

test('two-factor setup and sign-in with an authenticator app, without JavaScript', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/settings/security', a.domain));
  await expect(page.getByTestId('two-factor-off')).toBeVisible();
  await page.getByRole('link', { name: 'Use an authenticator app' }).click();
  await expect(page.getByTestId('totp-setup')).toBeVisible();
  await expect(page.getByRole('link', { name: 'open the setup link in your app' })).toHaveAttribute('href', /^otpauth:\/\/totp\//);
  const secret = (await page.getByTestId('totp-secret').innerText()).replace(/\s/g, '');
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  // The QR code, drawn on the server: an SVG of the link's modules, square and large enough for a phone's camera.
  const qr = page.getByRole('img', { name: 'QR code of the setup link' }).locator('svg');
  await expect(qr).toBeVisible();
  const box = (await qr.boundingBox())!;
  expect(Math.round(box.width)).toBe(Math.round(box.height));
  expect(box.width).toBeGreaterThanOrEqual(150);
  expect(await qr.locator('path').count()).toBeGreaterThan(0);

  await page.getByLabel('Code from the app').fill('12345');
  await page.getByRole('button', { name: 'Turn on' }).click();
  await expect(page.getByText('Enter the 6-digit code or a recovery code')).toBeVisible();
  await page.getByLabel('Code from the app').fill(totpCode(secret));
  await page.getByRole('button', { name: 'Turn on' }).click();
  await expect(page.getByTestId('recovery-codes').locator('li')).toHaveCount(10);

  await page.goto(url('/logout', a.domain));
  await page.getByRole('button', { name: 'Yes' }).click();
  await page.goto(url('/signin', a.domain));
  await page.getByLabel('Email').fill(a.email);
  await page.getByLabel('Password').fill(a.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(url('/two-factor', a.domain));
  await expect(page.getByRole('heading', { name: 'Two-factor sign-in' })).toBeVisible();
  await page.getByLabel('Code').fill(totpCode(secret, Date.now() + 30_000));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(url('/home', a.domain));
});

test.describe('with JavaScript', () => {
  test.use({ javaScriptEnabled: true });

  test('warns a minute before the idle sign-out and "Stay signed in" pings the server', async ({ page }) => {
    const a = await createTestAccount();
    await getDb().update(schema.accounts).set({ settings: { idleSignOutMinutes: 15 } }).where(eq(schema.accounts.id, a.account.id));
    await page.clock.install();
    await signIn(page, a);
    await hydrated(page);
    await expect(page.getByTestId('idle-warning')).toBeHidden();
    await page.clock.fastForward('14:05');
    const dialog = page.getByTestId('idle-warning');
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText(/You will be signed out in \d+ s/);
    await getDb().update(schema.sessions).set({ lastSeenAt: new Date(Date.now() - 10 * 60_000) }).where(eq(schema.sessions.userId, a.owner.id));
    const ping = page.waitForResponse((r) => r.url().endsWith('/session/keep-alive') && r.status() === 200);
    await dialog.getByRole('button', { name: 'Stay signed in' }).click();
    await ping;
    await expect(dialog).toBeHidden();
    const [session] = await getDb().select().from(schema.sessions).where(eq(schema.sessions.userId, a.owner.id));
    expect(Date.now() - session.lastSeenAt.getTime()).toBeLessThan(30_000);
  });
});
