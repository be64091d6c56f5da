import type { Page } from '@playwright/test';
import { expect } from '@playwright/test';
import { and, desc, eq } from 'drizzle-orm';
import { getDb, schema } from '../../db/client';

export const port = () => Number(process.env.E2E_PORT);

/** The URL of a page on an account's subdomain, or on the bare host when no domain is given. */
export function url(path: string, domain?: string) {
  return `http://${domain ? `${domain}.` : ''}localhost:${port()}${path}`;
}

/** The newest mail to an address, read from the development mailbox Parley keeps without SMTP_URL. */
export async function latestMail(to: string, opts: { subject?: RegExp; timeoutMs?: number } = {}) {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  for (;;) {
    const rows = await getDb()
      .select()
      .from(schema.outboundEmails)
      .where(and(eq(schema.outboundEmails.to, to.toLowerCase())))
      .orderBy(desc(schema.outboundEmails.id))
      .limit(10);
    const mail = rows.find((r) => !opts.subject || opts.subject.test(r.subject));
    if (mail) return mail;
    if (Date.now() > deadline) throw new Error(`no mail to ${to}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function signIn(page: Page, opts: { domain: string; email: string; password: string; remember?: boolean }) {
  await page.goto(url('/signin', opts.domain));
  await page.getByLabel('Email').fill(opts.email);
  await page.getByLabel('Password').fill(opts.password);
  if (opts.remember) await page.getByLabel('Remember me').check();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(url('/home', opts.domain));
}

/** Field errors are shown under their field; this reads the one of a labelled input. */
export function fieldError(page: Page, text: string) {
  return page.locator('.field-error', { hasText: text });
}

/** The shell's socket connects once React has hydrated: keys pressed or text typed before that never reach it. */
export async function hydrated(page: Page) {
  await expect(page.getByTestId('connectivity')).toHaveAttribute('data-state', 'online');
}

/** The toast the page shows (the one toast mechanism). */
export function toast(page: Page) {
  return page.getByTestId('toast');
}
