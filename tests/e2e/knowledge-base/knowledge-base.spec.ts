import { expect, test, type Page } from '@playwright/test';
import { createTestAccount } from '../../factories';
import { fieldError, hydrated, signIn, url } from '../helpers';

const toast = (page: Page) => page.getByTestId('toast');

test('knowledge base without JavaScript: create it, a category and an article, publish, see it on the help centre, edit twice, compare, restore, reorder, search with a typo', async ({
  page,
  context,
}) => {
  test.setTimeout(120_000);
  const a = await createTestAccount();
  await signIn(page, a);
  await page.goto(url('/knowledgebase', a.domain));
  await page.getByLabel('Name').fill('N'.repeat(21));
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, 'Length must be less than or equal to 20 characters')).toBeVisible();
  await page.getByLabel('Name').fill('Help');
  await page.getByLabel('Description').fill('Answers for customers');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  // The only knowledge base: straight into it.
  await expect(page).toHaveURL(/\/knowledgebase\/\d+\/articles$/);
  await expect(toast(page)).toHaveText('Knowledgebase Created');
  const base = new URL(page.url()).pathname.replace(/\/articles$/, '');
  const nav = page.getByRole('navigation', { name: 'Knowledge base' });
  for (const item of [
    'Articles',
    'Categories',
    'Customization',
    'General',
    'Advanced',
    'SEO',
    'Version Control',
    'Backup & Restore',
    'Custom CSS & JS',
    'Redirect Rules',
    'Import & Export',
  ]) {
    await expect(nav.getByRole('link', { name: item })).toBeVisible();
  }

  // Two categories, then reorder them.
  for (const name of ['Billing', 'Shipping']) {
    await nav.getByRole('link', { name: 'Categories' }).click();
    await page.getByRole('link', { name: 'New Category' }).click();
    await page.getByLabel('Name').fill(name);
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await expect(toast(page)).toHaveText('Category Created');
  }
  await page.getByRole('button', { name: 'Move Shipping up' }).click();
  await expect(page.getByTestId('categories').getByRole('link')).toHaveText(['Shipping', 'Billing']);

  // An article: a title is required; then published.
  await nav.getByRole('link', { name: 'Articles' }).click();
  await page.getByRole('link', { name: 'New Article' }).click();
  await page.getByRole('button', { name: 'Publish' }).click();
  await expect(fieldError(page, 'Title is not allowed to be empty')).toBeVisible();
  await page.getByLabel('Title', { exact: true }).fill('Paying invoices');
  await page.getByLabel('Category').selectOption({ label: 'Billing' });
  await page.getByLabel('Body (HTML)').fill('<p>Every invoice can be paid by card.</p>');
  await page.getByRole('button', { name: 'Publish' }).click();
  await expect(toast(page)).toHaveText('Article Published');

  // Edit it twice (drafts), compare two versions, restore the first.
  for (const text of ['<p>Every invoice can be paid by card or transfer.</p>', '<p>Every invoice can be paid by card, transfer or cheque.</p>']) {
    await page.getByLabel('Body (HTML)').fill(text);
    await page.getByRole('button', { name: 'Save draft' }).click();
    await expect(toast(page)).toHaveText('Article Updated');
  }
  await expect(page.getByTestId('versions').getByRole('listitem')).toHaveCount(3);
  await page.getByLabel('Compare').selectOption({ label: 'Version 1' });
  await page.getByLabel('with').selectOption({ label: 'Version 3' });
  await page.getByRole('button', { name: 'Compare versions' }).click();
  await expect(page.getByTestId('diff').locator('ins')).toContainText(['cheque']);
  await page.getByRole('link', { name: 'Version 1' }).click();
  await page.getByRole('button', { name: 'Restore as new draft' }).click();
  await expect(toast(page)).toHaveText('Version 1 restored as version 4');
  await expect(page.getByLabel('Body (HTML)')).toHaveValue('<p>Every invoice can be paid by card.</p>');

  // The public help centre shows the published version, finds it with a typo, and no script runs there.
  const publicPage = await context.newPage();
  // Slugs are unique across accounts (ADR 056): Preview names this one's public address, its help host (ADR 147).
  const helpHref = await page.getByTestId('kb-preview').getAttribute('href');
  await publicPage.goto(helpHref!);
  await publicPage.getByRole('link', { name: 'Paying invoices' }).click();
  await expect(publicPage.getByRole('heading', { level: 1 })).toHaveText('Paying invoices');
  await expect(publicPage.locator('.hc-article')).toContainText('Every invoice can be paid by card.');
  await publicPage.getByRole('button', { name: 'Yes' }).click();
  await expect(publicPage.getByRole('status')).toHaveText('Thanks for your feedback.');
  await publicPage.getByLabel('Search the help centre').fill('invoce');
  await publicPage.getByRole('button', { name: 'Search' }).click();
  await expect(publicPage.getByTestId('hc-results').getByRole('link')).toHaveText(['Paying invoices']);
  expect(await publicPage.locator('script').count()).toBe(0);

  // Trash hides it from the public; restore brings it back.
  await page.goto(url(`${base}/articles`, a.domain));
  await page.getByRole('button', { name: 'Move Paying invoices to trash' }).click();
  await expect(toast(page)).toHaveText('Article moved to trash');
  await page.getByRole('link', { name: 'Trash' }).click();
  await page.getByRole('button', { name: 'Restore' }).click();
  await expect(toast(page)).toHaveText('Article Restored');
});

test.describe('with JavaScript', () => {
  test.use({ javaScriptEnabled: true });
  test('the article list filters and sorts, with no console error', async ({ page }) => {
    const a = await createTestAccount();
    await signIn(page, a);
    // Listening from here: the sign-in helper's own requests are not this screen's.
    const errors: string[] = [];
    page.on('console', (m) => (m.type() === 'error' ? errors.push(m.text()) : undefined));
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('response', (r) => (r.status() >= 400 ? errors.push(`${r.status()} ${r.request().method()} ${r.url()}`) : undefined));
    await page.goto(url('/knowledgebase', a.domain));
    await hydrated(page);
    await page.getByLabel('Name').fill('Docs');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await expect(page).toHaveURL(/\/knowledgebase\/\d+\/articles$/);
    for (const title of ['Beta', 'Alpha']) {
      await page.getByRole('link', { name: 'New Article' }).click();
      await expect(page).toHaveURL(/\/articles\/new$/);
      await page.getByLabel('Title', { exact: true }).fill(title);
      await page.getByRole('button', { name: 'Create draft' }).click();
      await expect(toast(page)).toHaveText('Article Created');
      await page.getByRole('navigation', { name: 'Knowledge base' }).getByRole('link', { name: 'Articles' }).click();
    }
    await page.getByLabel('Sort by').selectOption('titleAZ');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect(page.getByTestId('articles').locator('tbody tr td:first-child')).toHaveText(['Alpha', 'Beta']);
    await page.getByRole('link', { name: 'Published' }).click();
    await expect(page.getByTestId('empty')).toBeVisible();
    expect(errors).toEqual([]);
  });
});
