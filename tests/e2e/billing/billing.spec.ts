import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { and, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { freePort } from '../../../db/embedded';
import { createTestAccount } from '../../factories';
import { startStripeStandIn, type StripeStandIn } from '../../helpers/stand-ins/stripe';

/**
 * Billing needs PARLEY_BILLING=on, which the shared browser-test server leaves off (a self-hosted installation):
 * this spec starts a second Parley on the same database with billing on, Stripe pointed at the stand-in and the
 * engine off (the shared server's engine works the events). Everything runs with JavaScript off, the provider's
 * card page included (the stand-in's, like Stripe Checkout, is a plain form).
 */
test.describe.configure({ mode: 'serial' });

let stripe: StripeStandIn;
let server: ChildProcess;
let port: number;
const url = (p: string, domain: string) => `http://${domain}.localhost:${port}${p}`;

test.beforeAll(async () => {
  stripe = await startStripeStandIn();
  port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-e2e-billing-'));
  server = spawn(process.execPath, ['build/server/index.js'], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(port),
      APP_HOST: `localhost:${port}`,
      PARLEY_DATA_DIR: dataDir,
      PARLEY_ENGINE: 'off',
      SMTP_URL: '',
      SMTP_INBOUND_PORT: '0',
      LOG_LEVEL: 'warn',
      PARLEY_BILLING: 'on',
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
      STRIPE_API_BASE: stripe.url,
      PARLEY_ALLOW_PRIVATE_DESTINATIONS: 'true',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error('the billing server did not start');
    await new Promise((r) => setTimeout(r, 250));
  }
  stripe.setWebhookUrl(`http://127.0.0.1:${port}/webhooks/stripe`);
});

test.afterAll(async () => {
  server?.kill('SIGTERM');
  if (server && server.exitCode === null) await new Promise((r) => server.once('exit', r));
  await stripe?.close();
});

async function addCard(page: Page, number: string) {
  await page.getByRole('button', { name: 'Add card' }).click();
  await expect(page.getByRole('heading', { name: 'Save a card' })).toBeVisible();
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry (MM/YY)').fill('12/34');
  await page.getByLabel('CVC').fill('123');
  await page.getByRole('button', { name: 'Save card' }).click();
  await expect(page.getByText('Card Added')).toBeVisible();
}

async function choose(page: Page, plan: string, seats: string) {
  await page.getByLabel('Plan', { exact: true }).selectOption({ label: plan });
  await page.getByLabel('Billing', { exact: true }).selectOption('month');
  await page.getByLabel('Seats').fill(seats);
  await page.getByRole('button', { name: 'Calculate amount' }).click();
  await expect(page.getByTestId('quote')).toBeVisible();
}

let account: Awaited<ReturnType<typeof createTestAccount>>;

test('a trial account subscribes, adds a card, changes plan, downloads an invoice, cancels, resumes and lapses', async ({ page }) => {
  const a = await createTestAccount();
  account = a;
  await page.goto(url('/signin', a.domain));
  await page.getByLabel('Email').fill(a.email);
  await page.getByLabel('Password').fill(a.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('trial-banner')).toContainText('days left in your trial');

  await page.getByTestId('trial-banner').getByRole('link', { name: 'Upgrade' }).click();
  await expect(page.getByRole('heading', { name: 'My Plan' })).toBeVisible();
  await addCard(page, '4242 4242 4242 4242');

  await choose(page, 'Starter', '1');
  await expect(page.getByTestId('quote')).toContainText('$19.00');
  await page.getByRole('button', { name: 'Start subscription' }).click();
  await expect(page.getByText('Subscription Started')).toBeVisible();
  await expect(page.getByTestId('subscription-status')).toHaveText('active');
  await expect(page.getByTestId('trial-banner')).toHaveCount(0);

  await addCard(page, '5555 5555 5555 4444');
  await page.locator('[data-card="4444"]').getByRole('button', { name: 'Make default' }).click();
  await expect(page.getByText('Default card updated')).toBeVisible();
  await expect(page.locator('[data-card="4444"]')).toContainText('Default');

  await choose(page, 'Growth', '2');
  await expect(page.getByTestId('proration')).toContainText('Proration for the rest of this period');
  await page.getByRole('button', { name: 'Confirm change' }).click();
  await expect(page.getByText('Subscription Updated')).toBeVisible();
  await expect(page.getByTestId('subscription-summary')).toContainText('Growth, 2 seats');

  await page.getByRole('link', { name: 'Invoices' }).last().click();
  await expect(page.getByTestId('invoices').locator('tbody tr')).toHaveCount(2);
  await page.getByTestId('invoices').getByRole('link', { name: /^PAR-/ }).last().click();
  await expect(page.getByTestId('invoice-total')).toHaveText('$19.00');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download PDF' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^invoice-PAR-\d{6}\.pdf$/);
  expect(fs.readFileSync((await download.path())!).subarray(0, 5).toString()).toBe('%PDF-');

  await page.goto(url('/settings/my-plan', a.domain));
  await page.getByRole('button', { name: 'Cancel subscription' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel subscription' }).click();
  await expect(page.getByText('Subscription Cancelled')).toBeVisible();
  await expect(page.getByTestId('subscription-status')).toHaveText('cancelled');
  await page.getByRole('button', { name: 'Resume subscription' }).click();
  await expect(page.getByText('Subscription Resumed')).toBeVisible();

  // The bank now declines the default card: the renewal fails, the account is past due, then lapses to free.
  const [sub] = await getDb().select().from(schema.billingSubscriptions).where(eq(schema.billingSubscriptions.accountId, a.account.id));
  const [card] = await getDb().select().from(schema.billingPaymentMethods).where(and(eq(schema.billingPaymentMethods.isDefault, true), eq(schema.billingPaymentMethods.accountId, a.account.id)));
  await stripe.settled();
  stripe.declineCard(card.providerPaymentMethodId);
  await stripe.renew(sub.providerSubscriptionId);
  await page.reload();
  await expect(page.getByTestId('trial-banner')).toContainText('Your last payment failed');
  await expect(page.getByTestId('subscription-status')).toHaveText('past_due');
  await expect(page.getByTestId('plan-name')).toHaveText('Growth');
  await getDb().update(schema.accounts).set({ pastDueSince: new Date(Date.now() - 8 * 86_400_000) }).where(eq(schema.accounts.id, a.account.id));
  await page.reload();
  await expect(page.getByTestId('plan-name')).toHaveText('Free');
});

/** The billing screens (billing is off on the shared crawl's server): axe, console errors, hydration, a 390 px phone. */
test('the billing screens pass axe with JavaScript on, without console errors, and fit a phone', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: true, viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(`${new URL(page.url()).pathname}: console: ${m.text().split('\n')[0]}`));
  page.on('pageerror', (e) => problems.push(`${new URL(page.url()).pathname}: pageerror: ${e.message.slice(0, 40)}`));
  page.on('response', (r) => r.status() >= 400 && problems.push(`${r.status()} ${r.url()}`));
  const a = account;
  await page.goto(url('/signin', a.domain));
  await page.getByLabel('Email').fill(a.email);
  await page.getByLabel('Password').fill(a.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(url('/home', a.domain));
  const [invoice] = await getDb().select().from(schema.billingInvoices).where(eq(schema.billingInvoices.accountId, a.account.id)).limit(1);
  for (const p of ['/settings/my-plan', '/settings/my-plan?plan=growth&interval=year&seats=3', '/settings/invoices', `/settings/invoices/${invoice.id}`]) {
    await page.goto(url(p, a.domain));
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    const axe = await new AxeBuilder({ page }).setLegacyMode().options({ resultTypes: ['violations'] }).analyze();
    for (const v of axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')) problems.push(`${p}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    if (overflow > 0) problems.push(`${p}: ${overflow}px of horizontal scroll at 390 px`);
  }
  expect(problems).toEqual([]);
  await context.close();
});
