import { expect, test } from '@playwright/test';
import { createTestAccount } from '../../factories';
import { signIn, url } from '../helpers';

/** Forms with JavaScript off: build one by submissions, publish it, a visitor submits it, the agent sees the response and the contact. */
test.use({ javaScriptEnabled: false });

test('build a form, submit it publicly, see the response and the contact (no JavaScript)', async ({ page, browser }) => {
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/forms', a.domain));
  await expect(page).toHaveURL(url('/forms/all', a.domain));
  await page.getByTestId('new-form').click();
  await page.getByLabel('Name').fill('Book a demo');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByRole('heading', { name: 'Book a demo', level: 1 })).toBeVisible();

  // Rows are added, moved and removed by submissions; the typed settings go with them.
  await page.getByLabel('Header').fill('Book a demo with us');
  await page.getByLabel('Add a field').selectOption('company');
  await page.getByTestId('add-field').click();
  await expect(page.getByTestId('field-row-3')).toContainText('Company');
  await expect(page.getByLabel('Header')).toHaveValue('Book a demo with us');
  await page.getByRole('button', { name: 'Move Company up' }).click();
  await expect(page.getByTestId('field-row-2')).toContainText('Company');
  await page.getByRole('button', { name: 'Remove Message' }).click();
  await expect(page.getByTestId('field-row-3')).toHaveCount(0);
  await page.getByLabel('Ask a captcha question to stop spam').uncheck();
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByText('Form Updated')).toBeVisible();
  await page.getByRole('button', { name: 'Publish' }).click();
  await expect(page.getByTestId('form-status')).toHaveText('Published');
  const publicUrl = await page.getByTestId('form-share').getByRole('link').getAttribute('href');

  const visitor = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
  await visitor.goto(publicUrl!);
  await expect(visitor.getByRole('heading', { name: 'Book a demo with us' })).toBeVisible();
  await visitor.getByLabel(/Full name/).fill('Vera Visitor');
  await visitor.getByLabel(/Company/).fill('Visitor Ltd');
  await visitor.getByRole('button', { name: 'Submit' }).click();
  await expect(visitor.getByText('This field is required')).toBeVisible();
  await expect(visitor.getByLabel(/Full name/)).toHaveValue('Vera Visitor');
  await visitor.getByLabel(/Email/).fill('vera@example.test');
  await visitor.getByRole('button', { name: 'Submit' }).click();
  await expect(visitor.getByTestId('thank-you')).toBeVisible();

  await page.getByRole('link', { name: 'Responses' }).click();
  await expect(page.getByTestId('responses-table')).toContainText('vera@example.test');
  await expect(page.getByTestId('responses-table')).toContainText('Visitor Ltd');
  // The engine files the response moments after it is stored (ADR 112): until then the row says so; reload until filed.
  const filed = page.getByRole('link', { name: 'Vera Visitor' });
  await expect(async () => {
    await page.reload();
    await expect(filed).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await filed.click();
  await expect(page).toHaveURL(/\/customers\/\d+$/);
  await expect(page.getByRole('heading', { name: /Vera Visitor/ })).toBeVisible();
});
