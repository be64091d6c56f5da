import crypto from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { createArticle } from '../../../app/models/knowledge-base/articles.server';
import { createCategory } from '../../../app/models/knowledge-base/categories.server';
import { createKnowledgeBase } from '../../../app/models/knowledge-base/knowledge-bases.server';
import { FEATURE_DENIED_MESSAGE } from '../../../app/models/plans/catalogue';
import { createTestAccount } from '../../factories';
import { fieldError, hydrated, port, signIn, url } from '../helpers';

test.use({ javaScriptEnabled: false });

/**
 * A request as the signed-in browser would send it, through Playwright's API client: to the loopback address with
 * the account's Host (the client's resolver does not know *.localhost) and the page's session cookie.
 */
async function asBrowser(
  page: Page,
  domain: string,
  path: string,
  opts: { method?: string; form?: Record<string, string>; multipart?: Record<string, unknown> } = {},
) {
  const host = `${domain}.localhost:${port()}`;
  const cookie = (await page.context().cookies(url('/', domain))).map((c) => `${c.name}=${c.value}`).join('; ');
  return page.request.fetch(`http://127.0.0.1:${port()}${path}`, {
    method: opts.method ?? 'GET',
    headers: { host, origin: `http://${host}`, cookie },
    ...(opts.form ? { form: opts.form } : {}),
    ...(opts.multipart ? { multipart: opts.multipart as never } : {}),
  });
}

async function knowledgeBase(a: Awaited<ReturnType<typeof createTestAccount>>) {
  const kb = await createKnowledgeBase({ accountId: a.account.id, actorId: a.owner.id, name: 'Help' });
  const who = { accountId: a.account.id, knowledgeBaseId: kb.id, actorId: a.owner.id };
  const billing = await createCategory({ ...who, name: 'Billing' });
  await createArticle({ ...who, title: 'Pay an invoice', categoryId: billing.id, body: '<p>Open Billing and pay.</p>', publish: true });
  await createArticle({ ...who, title: 'Refund policy', categoryId: billing.id, body: '<p>Thirty days.</p>' });
  return kb;
}

test('without JavaScript: download a backup, restore it into a new knowledge base, import a file, refuse a broken one', async ({ page }) => {
  test.setTimeout(90_000);
  const a = await createTestAccount();
  const kb = await knowledgeBase(a);
  await signIn(page, a);
  await page.goto(url(`/knowledgebase/${kb.id}/backup-and-restore`, a.domain));
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download backup' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^help.*-backup-\d+\.parley-kb\.jsonl\.gz$/);
  const backupPath = await download.path();

  // A file that is not a backup: the reason, and nothing restored.
  await page.getByLabel('Backup file').setInputFiles({ name: 'notes.gz', mimeType: 'application/gzip', buffer: Buffer.from('just some notes\n') });
  await page.getByRole('button', { name: 'Restore' }).click();
  await expect(fieldError(page, 'Line 1 is not valid JSON')).toBeVisible();

  await page.getByLabel('Backup file').setInputFiles(backupPath);
  await page.getByLabel(/Name of the new knowledge base/).fill('Restored help');
  await page.getByRole('button', { name: 'Restore' }).click();
  await expect(page).toHaveURL(/\/knowledgebase\/\d+\/articles$/);
  expect(page.url()).not.toContain(`/knowledgebase/${kb.id}/`);
  await expect(page.getByTestId('toast')).toContainText('Backup Restored: 2 articles');
  await expect(page.getByRole('link', { name: 'Pay an invoice' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Refund policy' })).toBeVisible();
  const restoredBase = new URL(page.url()).pathname.replace(/\/articles$/, '');

  // Import & Export of the restored one: a file that adds an article and renames the category.
  await page.goto(url(`${restoredBase}/import-export`, a.domain));
  const file = [
    { t: 'manifest', format: 'parley-kb', version: 1, kind: 'export', createdAt: '2026-11-01T00:00:00Z' },
    { t: 'settings', name: 'Elsewhere', language: 'en' },
    { t: 'category', id: 1, name: 'Billing and refunds', slug: 'billing' },
    {
      t: 'article',
      id: 1,
      categoryId: 1,
      title: 'Change your card',
      slug: 'change-your-card',
      bodyHtml: '<p>Open Billing, then Card.</p>',
      status: 'published',
      publishedTitle: 'Change your card',
      publishedHtml: '<p>Open Billing, then Card.</p>',
    },
    { t: 'end', counts: { category: 1, article: 1 } },
  ]
    .map((r) => JSON.stringify(r))
    .join('\n');
  await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'more.jsonl', mimeType: 'application/json', buffer: Buffer.from(file) });
  await page.getByRole('button', { name: 'Import file' }).click();
  await expect(page.getByTestId('toast')).toContainText('1 created, 0 updated, 0 unchanged');
  await page
    .getByLabel('File', { exact: true })
    .setInputFiles({ name: 'broken.jsonl', mimeType: 'application/json', buffer: Buffer.from(file.split('\n').slice(0, 3).join('\n')) });
  await page.getByRole('button', { name: 'Import file' }).click();
  await expect(page.getByText('The file is incomplete: it ends before its closing record')).toBeVisible();
  await page.goto(url(`${restoredBase}/articles`, a.domain));
  await expect(page.getByRole('link', { name: 'Change your card' })).toBeVisible();
  await page.goto(url(`${restoredBase}/categories`, a.domain));
  await expect(page.getByText('Billing and refunds')).toBeVisible();
});

test('a plan without backupRestore and importExport shows the locked pages and the server refuses the posts', async ({ page }) => {
  const a = await createTestAccount();
  const [plan] = await getDb()
    .insert(schema.plans)
    .values({ key: `kb-port-${crypto.randomBytes(4).toString('hex')}`, name: 'Knowledge base only', features: { knowledgeBase: { enabled: true } } })
    .returning();
  await getDb().update(schema.accounts).set({ planId: plan.id }).where(eq(schema.accounts.id, a.account.id));
  const kb = await knowledgeBase(a);
  await signIn(page, a);
  for (const [path, download, submit] of [
    ['backup-and-restore', 'Download backup', 'Restore'],
    ['import-export', 'Export articles', 'Import file'],
  ] as const) {
    await page.goto(url(`/knowledgebase/${kb.id}/${path}`, a.domain));
    await expect(page.getByTestId('plan-locked')).toContainText(FEATURE_DENIED_MESSAGE);
    await expect(page.getByRole('button', { name: download })).toBeDisabled();
    await expect(page.getByRole('button', { name: submit })).toBeDisabled();
  }
  const restore = await asBrowser(page, a.domain, `/knowledgebase/${kb.id}/backup-and-restore`, {
    method: 'POST',
    multipart: { intent: 'restore', target: 'new', backup: { name: 'b.gz', mimeType: 'application/gzip', buffer: Buffer.from('x') } },
  });
  expect(restore.status()).toBe(403);
  const zendesk = await asBrowser(page, a.domain, `/knowledgebase/${kb.id}/import-export`, {
    method: 'POST',
    form: { intent: 'import-zendesk', url: 'https://acme.zendesk.com' },
  });
  expect(zendesk.status()).toBe(403);
  expect((await asBrowser(page, a.domain, `/knowledgebase/${kb.id}/backup-and-restore/download`)).status()).toBe(403);
  expect((await asBrowser(page, a.domain, `/knowledgebase/${kb.id}/import-export/export`)).status()).toBe(403);
  // The page itself answers 200: it shows the lock.
  expect((await asBrowser(page, a.domain, `/knowledgebase/${kb.id}/backup-and-restore`)).status()).toBe(200);
  expect(await getDb().select().from(schema.knowledgeBases).where(eq(schema.knowledgeBases.accountId, a.account.id))).toHaveLength(1);
});

test.describe('with JavaScript', () => {
  test.use({ javaScriptEnabled: true });

  test("a Zendesk import's progress refreshes itself until it is done", async ({ page }) => {
    const a = await createTestAccount();
    const kb = await createKnowledgeBase({ accountId: a.account.id, actorId: a.owner.id, name: 'Help' });
    const [running] = await getDb()
      .insert(schema.kbImports)
      .values({
        accountId: a.account.id,
        knowledgeBaseId: kb.id,
        url: 'https://acme.zendesk.com',
        locale: 'en-us',
        status: 'running',
        fetched: { categories: 1, sections: 2, articles: 3 },
      })
      .returning();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await signIn(page, a);
    await page.goto(url(`/knowledgebase/${kb.id}/import-export`, a.domain));
    await hydrated(page);
    await expect(page.getByTestId('kb-imports')).toContainText('Fetched 1 categories, 2 sections, 3 articles');
    await getDb()
      .update(schema.kbImports)
      .set({
        status: 'done',
        result: {
          articlesCreated: 3,
          articlesUpdated: 0,
          articlesUnchanged: 0,
          articlesSkipped: 0,
          categoriesCreated: 2,
          categoriesUpdated: 0,
          imagesAdded: 0,
        },
      })
      .where(eq(schema.kbImports.id, running.id));
    await expect(page.getByTestId('kb-imports')).toContainText('3 created', { timeout: 8000 });
    await expect(page.getByRole('link', { name: 'Check progress' })).toHaveCount(0);
    expect(errors).toEqual([]);
  });
});
