import { expect, test } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { createTestAccount } from '../../factories';
import { fieldError, latestMail, signIn, url } from '../helpers';

test('sign in and log out without JavaScript', async ({ page }) => {
  const a = await createTestAccount();
  await page.goto(url('/home', a.domain));
  await expect(page).toHaveURL(url('/signin?redirectTo=%2Fhome', a.domain));

  await page.getByLabel('Email').fill(a.email);
  await page.getByLabel('Password').fill('wrong-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('Invalid email or password')).toBeVisible();
  await expect(page.getByLabel('Email')).toHaveValue(a.email);

  await signIn(page, a);
  await page.getByLabel('Profile menu').click();
  await page.getByRole('link', { name: 'Logout' }).click();
  await expect(page.getByText('Are you sure you want to logout?')).toBeVisible();
  await page.getByRole('link', { name: 'Cancel' }).click();
  await expect(page).toHaveURL(url('/home', a.domain));

  await page.goto(url('/logout', a.domain));
  await page.getByRole('button', { name: 'Yes' }).click();
  await expect(page).toHaveURL(url('/signin', a.domain));
  await page.goto(url('/home', a.domain));
  await expect(page).toHaveURL(/\/signin/);
  const [session] = await getDb().select().from(schema.sessions).where(eq(schema.sessions.userId, a.owner.id));
  expect(session.revokedAt).not.toBeNull();
});

test('the bare host asks for the domain and continues on the account host', async ({ page }) => {
  const a = await createTestAccount();
  await page.goto(url('/signin'));
  await page.getByLabel('Account domain').fill('nosuchdomain');
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(fieldError(page, 'Invalid Domain')).toBeVisible();
  await page.getByLabel('Account domain').fill(a.domain);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page).toHaveURL(url('/signin', a.domain));
  await expect(page.getByRole('heading', { name: `Sign in to ${a.domain}` })).toBeVisible();
});

test('an expired session says so on the sign-in page', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await getDb().update(schema.sessions).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(schema.sessions.userId, a.owner.id));
  await page.goto(url('/settings/my-plan', a.domain));
  await expect(page).toHaveURL(url('/signin?expired=1', a.domain));
  await expect(page.getByTestId('session-expired')).toHaveText('Session Expired: Token is expired and you are logged out');
});

test('remember me keeps the cookie 5 days, otherwise it ends with the browser', async ({ page, context }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  let cookie = (await context.cookies()).find((c) => c.name === '__parley_session')!;
  expect(cookie.expires).toBe(-1);
  expect(cookie.httpOnly).toBe(true);
  expect(cookie.sameSite).toBe('Lax');
  await context.clearCookies();
  await signIn(page, { ...a, remember: true });
  cookie = (await context.cookies()).find((c) => c.name === '__parley_session')!;
  const days = (cookie.expires * 1000 - Date.now()) / 86_400_000;
  expect(days).toBeGreaterThan(4.9);
  expect(days).toBeLessThanOrEqual(5);
});

test("a user of one account is not signed in on another account's host", async ({ page }) => {
  const a = await createTestAccount();
  const b = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/home', b.domain));
  await expect(page).toHaveURL(/\/signin/);
  await expect(page.getByRole('heading', { name: `Sign in to ${b.domain}` })).toBeVisible();
});

test('forgot password sends a link that sets a new password', async ({ page }) => {
  const a = await createTestAccount();
  await page.goto(url('/forgot-password', a.domain));
  await page.getByLabel('Email').fill('nope');
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await expect(fieldError(page, 'Enter a valid email address')).toBeVisible();
  await page.getByLabel('Email').fill(a.email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible();
  const mail = await latestMail(a.email, { subject: /Reset your Parley password/ });
  const link = mail.text.match(/https?:\/\/\S+/)![0];
  await page.goto(link);
  await page.getByLabel('Password', { exact: true }).fill('brand-new-password');
  await page.getByLabel('Confirm password').fill('different-password');
  await page.getByRole('button', { name: 'Set password' }).click();
  await expect(fieldError(page, 'Passwords do not match')).toBeVisible();
  await page.getByLabel('Password', { exact: true }).fill('brand-new-password');
  await page.getByLabel('Confirm password').fill('brand-new-password');
  await page.getByRole('button', { name: 'Set password' }).click();
  await expect(page.getByTestId('toast')).toHaveText('Password Changed');
  await signIn(page, { ...a, password: 'brand-new-password' });
  // The link works once.
  await page.goto(link);
  await expect(page.getByRole('heading', { name: 'This link is invalid or has expired' })).toBeVisible();
});

test('forgot domain emails the domains of the address', async ({ page }) => {
  const a = await createTestAccount();
  await page.goto(url('/forgot-domain'));
  await page.getByLabel('Email').fill(a.email);
  await page.getByRole('button', { name: 'Email my domains' }).click();
  await expect(page).toHaveURL(url('/thankyou?for=domain'));
  const mail = await latestMail(a.email, { subject: /Your Parley accounts/ });
  expect(mail.text).toContain(`${a.domain}.localhost`);
});

test('resending the sign-up code sends a new one', async ({ page }) => {
  const domain = `rs${Date.now().toString(36)}`.slice(0, 20);
  const email = `${domain}@example.test`;
  await page.goto(url('/signup'));
  await page.getByLabel('Account domain').fill(domain);
  await page.getByLabel('First name').fill('Res');
  await page.getByLabel('Last name').fill('End');
  await page.getByLabel('Work email').fill(email);
  await page.getByLabel('Password').fill('a-long-password');
  await page.getByRole('button', { name: 'Sign up' }).click();
  const first = await latestMail(email);
  await page.getByRole('button', { name: 'Resend code' }).click();
  await expect(page.getByText('A new code is on its way.')).toBeVisible();
  let second = await latestMail(email);
  for (let i = 0; i < 20 && second.id === first.id; i++) second = await latestMail(email);
  expect(second.id).not.toBe(first.id);
  await page.getByLabel('Code').fill(first.subject.match(/(\d{6})/)![1] === second.subject.match(/(\d{6})/)![1] ? '000000' : first.subject.match(/(\d{6})/)![1]);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(fieldError(page, 'The code is not valid')).toBeVisible();
  await page.getByLabel('Code').fill(second.subject.match(/(\d{6})/)![1]);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(url('/extra-details', domain));
});
