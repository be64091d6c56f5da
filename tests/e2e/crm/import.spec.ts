import fs from 'node:fs/promises';
import { expect, test, type Download } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { publishToAccount } from '../../../app/utils/live.server';
import { createTestAccount } from '../../factories';
import { signIn, url } from '../helpers';

async function text(download: Download) {
  return fs.readFile(await download.path(), 'utf8');
}

test('import a CSV with one bad row, download the failed rows, then export, without JavaScript', async ({ page }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/customers/import', a.domain));
  await expect(page).toHaveTitle('Import contacts | Customers | Parley');

  // A file that is not CSV or Excel is refused with a clear message.
  await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'photo.csv', mimeType: 'text/csv', buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]) });
  await page.getByRole('button', { name: 'Upload' }).click();
  await expect(page.locator('.field-error', { hasText: 'The file must be a CSV or an Excel (.xlsx) file' })).toBeVisible();

  const csv = ['Mail,Vorname,Nachname,Firma', 'ada@example.test,Ada,Lovelace,Analytical', 'broken-address,Bad,Row,', 'grace@example.test,Grace,Hopper,Navy'].join('\n');
  await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.getByRole('button', { name: 'Upload' }).click();
  await expect(page).toHaveURL(/\/customers\/import\/\d+$/);
  await expect(page.getByRole('heading', { name: 'Map the columns' })).toBeVisible();
  await expect(page.getByTestId('mapping')).toContainText('broken-address');

  // Headers it cannot guess start as "Ignore"; the agent maps them.
  await expect(page.getByLabel('Mail')).toHaveValue('email');
  await page.getByLabel('Vorname').selectOption('firstName');
  await page.getByLabel('Nachname').selectOption('lastName');
  await page.getByLabel('Firma').selectOption('company');
  await page.getByLabel('Skip the row').check();
  await page.getByRole('button', { name: 'Import' }).click();
  await expect(page.getByTestId('toast')).toContainText('Imported successfully');

  // Without JavaScript the page shows the truth on each reload.
  for (let i = 0; i < 50; i++) {
    if ((await page.getByTestId('import-status').textContent()) === 'Ready for Import') break;
    await page.waitForTimeout(300);
    await page.reload();
  }
  await expect(page.getByTestId('import-status')).toHaveText('Ready for Import');
  await expect(page.locator('progress')).toHaveAttribute('value', '3');
  await expect(page.getByTestId('import-counts')).toContainText('Created2');
  await expect(page.getByTestId('import-errors')).toContainText('Invalid email');

  const failedDownload = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Download failed rows (CSV)' }).click();
  const failed = await text(await failedDownload);
  expect(failed.trim().split('\n')).toEqual(['Row,Reason,Mail,Vorname,Nachname,Firma', '2,Invalid email,broken-address,Bad,Row,']);

  await page.goto(url('/customers/import', a.domain));
  await expect(page.getByTestId('imports')).toContainText('people.csv');
  const exportDownload = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Export contacts (CSV)' }).click();
  const exported = await text(await exportDownload);
  const lines = exported.trim().split('\n');
  expect(lines[0]).toBe('id,firstName,lastName,email,phone,title,website,country,company,tags,createdAt');
  expect(lines.slice(1).map((l) => l.split(',').slice(1, 4).join(' '))).toEqual(['Ada Lovelace ada@example.test', 'Grace Hopper grace@example.test']);
});

test('with JavaScript the progress bar follows the import live, without a reload', async ({ browser }) => {
  const a = await createTestAccount();
  const context = await browser.newContext({ javaScriptEnabled: true });
  const page = await context.newPage();
  await signIn(page, a);
  await page.goto(url('/customers/import', a.domain));
  await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'live.csv', mimeType: 'text/csv', buffer: Buffer.from('email\none@example.test\ntwo@example.test\n') });
  await page.getByRole('button', { name: 'Upload' }).click();
  await expect(page).toHaveURL(/\/customers\/import\/\d+$/);
  const importId = Number(/(\d+)$/.exec(page.url())![1]);
  // Hold the import at Under Progress (no job queued) so that the test drives the progress itself.
  await getDb()
    .update(schema.contactImports)
    .set({ status: 2, mapping: { '0': 'email' } })
    .where(eq(schema.contactImports.id, importId));
  await page.reload();
  await expect(page.getByTestId('import-status')).toHaveText('Under Progress');
  await expect(page.getByTestId('connectivity')).toHaveAttribute('data-state', 'online');
  await page.evaluate(() => ((window as unknown as { __mark: number }).__mark = 1));
  await getDb().update(schema.contactImports).set({ processedRows: 1, createdRows: 1 }).where(eq(schema.contactImports.id, importId));
  await publishToAccount(a.account.id, { type: 'import.progress', importId });
  await expect(page.locator('progress')).toHaveAttribute('value', '1');
  await getDb().update(schema.contactImports).set({ processedRows: 2, createdRows: 2, status: 3, finishedAt: new Date() }).where(eq(schema.contactImports.id, importId));
  await publishToAccount(a.account.id, { type: 'import.progress', importId });
  await expect(page.getByTestId('import-status')).toHaveText('Ready for Import');
  await expect(page.getByTestId('import-done')).toContainText('Imported successfully');
  expect(await page.evaluate(() => (window as unknown as { __mark?: number }).__mark)).toBe(1);

  // The mapping step works with JavaScript too (client validation, then the same post).
  await page.goto(url('/customers/import', a.domain));
  await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'js.csv', mimeType: 'text/csv', buffer: Buffer.from('code,email\n1,js@example.test\n') });
  await page.getByRole('button', { name: 'Upload' }).click();
  await expect(page.getByRole('heading', { name: 'Map the columns' })).toBeVisible();
  await page.getByLabel('code').selectOption('email');
  await page.getByRole('button', { name: 'Import' }).click();
  await expect(page.locator('.field-error', { hasText: 'Email is mapped to more than one column' })).toBeVisible();
  await page.getByLabel('code').selectOption('ignore');
  await page.getByRole('button', { name: 'Import' }).click();
  await expect(page.getByTestId('toast')).toContainText('Imported successfully');
  await expect(page.getByTestId('import-status')).toHaveText('Ready for Import');
  await context.close();
});
