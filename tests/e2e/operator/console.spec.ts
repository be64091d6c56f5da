import crypto from 'node:crypto';
import { expect, test } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { addOperator, setOperatorPassword } from '../../../app/models/operations/operators.server';
import AxeBuilder from '@axe-core/playwright';
import { createTestAccount } from '../../factories';
import { signIn, toast, url } from '../helpers';

// Without JavaScript (the project's default): every step is a server-rendered form.
test('an operator signs in, suspends an account (its agent sees the suspended page), resumes it, changes its plan and deletes it', async ({ page, browser }) => {
  const email = `ops-${crypto.randomBytes(3).toString('hex')}@example.test`;
  const { token } = await addOperator({ email });
  const a = await createTestAccount();

  // The link the CLI prints: set the password, then sign in.
  await page.goto(url(`/operator/set-password?token=${encodeURIComponent(token)}`));
  await page.getByLabel('Password', { exact: true }).fill('operator-pass-1');
  await page.getByLabel('Confirm password').fill('operator-pass-1');
  await page.getByRole('button', { name: 'Set password' }).click();
  await expect(page).toHaveURL(url('/operator/signin'));
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('operator-pass-1');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(url('/operator'));

  await page.getByLabel('Domain or name').fill(a.domain);
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByTestId('operator-accounts').getByRole('link', { name: a.domain }).click();

  // The account's agent, in another browser.
  const agent = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
  await signIn(agent, { domain: a.domain, email: a.email, password: a.password });

  await page.getByRole('button', { name: 'Suspend account' }).click();
  await expect(toast(page)).toHaveText(`${a.domain} is suspended.`);
  await agent.goto(url('/inbox', a.domain));
  await expect(agent.getByTestId('account-suspended')).toBeVisible();

  await page.getByRole('button', { name: 'Resume account' }).click();
  await expect(toast(page)).toHaveText(`${a.domain} is resumed.`);
  await agent.goto(url('/home', a.domain));
  await expect(agent.getByTestId('account-suspended')).toHaveCount(0);

  await page.getByLabel('Plan', { exact: true }).selectOption('growth');
  await page.getByRole('button', { name: 'Change plan' }).click();
  await expect(page.getByTestId('account-plan')).toContainText('Growth');

  await page.getByRole('link', { name: 'Delete account…' }).click();
  await page.getByLabel(/Type the account's domain/).fill('wrong');
  await page.getByRole('button', { name: 'Export and delete' }).click();
  await expect(page.getByRole('alert')).toContainText('to confirm');
  await page.getByLabel(/Type the account's domain/).fill(a.domain);
  await page.getByRole('button', { name: 'Export and delete' }).click();
  await expect(page).toHaveURL(url('/operator'));
  expect(await getDb().select().from(schema.accounts).where(eq(schema.accounts.id, a.account.id))).toEqual([]);

  await page.getByRole('link', { name: 'Audit log' }).click();
  await expect(page.getByTestId('operator-audit')).toContainText('Account deleted');
  await page.getByRole('link', { name: 'System status' }).click();
  await expect(page.getByTestId('status-migration')).toContainText('up to date');
  // 390 px: no sideways scrolling.
  await page.setViewportSize({ width: 390, height: 800 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});

test('an account user is refused at /operator', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, { domain: a.domain, email: a.email, password: a.password });
  const onAccount = await page.goto(url('/operator', a.domain));
  expect(onAccount?.status()).toBe(404);
  await page.goto(url('/operator'));
  await expect(page).toHaveURL(url('/operator/signin'));
  await page.getByLabel('Email').fill(a.email);
  await page.getByLabel('Password').fill(a.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('Invalid email or password');
});

// The accessibility crawl signs in as an account user; the console's screens are checked here, signed in as an
// operator: no serious or critical axe violation, no console error or hydration warning with JavaScript, and no
// sideways scrolling at 390 px.
test.describe('with JavaScript', () => {
  test.use({ javaScriptEnabled: true });
  test('the console screens pass axe, log no error and fit a phone', async ({ page }) => {
    const email = `ops-${crypto.randomBytes(3).toString('hex')}@example.test`;
    const { token } = await addOperator({ email });
    await setOperatorPassword({ token, password: 'operator-pass-1' });
    const a = await createTestAccount();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || (m.type() === 'warning' && /hydrat|#41[89]|#42[35]/i.test(m.text()))) errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(url('/operator/signin'));
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('operator-pass-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(url('/operator'));
    const problems: string[] = [];
    for (const width of [1366, 390]) {
      await page.setViewportSize({ width, height: 800 });
      for (const path of ['/operator', '/operator/status', '/operator/audit', `/operator/accounts/${a.account.id}`, `/operator/accounts/${a.account.id}/delete`]) {
        await page.goto(url(path));
        const result = await new AxeBuilder({ page }).setLegacyMode().options({ resultTypes: ['violations'] }).analyze();
        for (const v of result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'))
          problems.push(`${path} @${width}: ${v.id} ${v.nodes.slice(0, 2).map((n) => n.target.join(' ')).join(' | ')}`);
        const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
        if (scroll > width) problems.push(`${path} @${width}: scrolls sideways (${scroll} px)`);
      }
    }
    expect(problems).toEqual([]);
    expect(errors).toEqual([]);
  });
});
