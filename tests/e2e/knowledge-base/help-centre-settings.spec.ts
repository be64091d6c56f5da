import { expect, test, type Page } from '@playwright/test';
import { createArticle, updateArticle } from '../../../app/models/knowledge-base/articles.server';
import { createCategory } from '../../../app/models/knowledge-base/categories.server';
import { createKnowledgeBase } from '../../../app/models/knowledge-base/knowledge-bases.server';
import { createTestAccount } from '../../factories';
import { fieldError, signIn, url } from '../helpers';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const toast = (page: Page) => page.getByTestId('toast');

async function setup(page: Page) {
  const a = await createTestAccount();
  const kb = await createKnowledgeBase({ accountId: a.account.id, actorId: a.owner.id, name: 'Help' });
  const who = { accountId: a.account.id, knowledgeBaseId: kb.id, actorId: a.owner.id };
  const cat = await createCategory({ ...who, name: 'Billing' });
  const first = await createArticle({ ...who, title: 'Zebra invoices', categoryId: cat.id, body: '<p>Pay by card.</p>', publish: true });
  await createArticle({ ...who, title: 'Apple refunds', categoryId: cat.id, body: '<p>Within 30 days.</p>', publish: true });
  await updateArticle({ ...who, id: first.id, title: 'Zebra invoices', categoryId: cat.id, body: '<p>Pay by card or transfer.</p>' });
  await signIn(page, a);
  return { ...a, kb, cat, first };
}

test('Customization without JavaScript: contrast, link and logo messages, then the help centre shows the logo, colours and links', async ({ page }) => {
  const { domain, kb } = await setup(page);
  await page.goto(url(`/knowledgebase/${kb.id}/articles`, domain));
  await page.getByRole('navigation', { name: 'Knowledge base' }).getByRole('link', { name: 'Customization' }).click();
  await expect(page.getByRole('heading', { name: 'Customization' })).toBeVisible();

  await page.getByLabel('Brand colour').fill('#FFEE00');
  await page.getByLabel('Label 1').fill('Status');
  await page.getByLabel('Address 1').fill('ftp://status.example.com');
  await page.getByLabel('Address 2').fill('https://example.com');
  await page.getByLabel('Logo image').setInputFiles({ name: 'logo.gif', mimeType: 'image/gif', buffer: Buffer.from('not an image at all') });
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(fieldError(page, 'The header text needs a contrast of at least 4.5:1 with the brand colour; these two give 1.2:1')).toBeVisible();
  await expect(fieldError(page, 'Enter a web address starting with http:// or https://')).toBeVisible();
  await expect(fieldError(page, 'Enter a label for this link')).toBeVisible();
  // What was typed is shown back.
  await expect(page.getByLabel('Brand colour')).toHaveValue('#FFEE00');
  await expect(page.getByLabel('Label 1')).toHaveValue('Status');

  await page.getByLabel('Brand colour').fill('#FFEE00');
  await page.getByLabel('Header text colour').fill('#1a1a1a');
  await page.getByLabel('Address 1').fill('https://status.example.com');
  await page.getByLabel('Address 2').fill('');
  await page.getByLabel('Logo image').setInputFiles({ name: 'logo.gif', mimeType: 'image/gif', buffer: Buffer.from('not an image at all') });
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(fieldError(page, 'logo.gif is not a PNG, JPEG, GIF or WebP image')).toBeVisible();

  await page.getByLabel('Logo image').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: PNG });
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(toast(page)).toHaveText('Settings Updated');
  await expect(page.getByTestId('logo-preview')).toBeVisible();
  await expect(page.getByTestId('contrast')).toContainText('Current contrast: 14.5:1');

  // Preview: the public help centre.
  await page.goto(url(`/hc/${kb.slug}`, domain));
  await expect(page.getByTestId('hc-logo')).toBeVisible();
  expect(await page.getByTestId('hc-logo').evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(1);
  await expect(page.getByRole('navigation', { name: 'Links' }).getByRole('link', { name: 'Status' })).toHaveAttribute('href', 'https://status.example.com');
  await expect(page.locator('.hc-header')).toHaveCSS('background-color', 'rgb(255, 238, 0)');
  await expect(page.locator('.hc-header a.hc-home')).toHaveCSS('color', 'rgb(26, 26, 26)');
});

test('Advanced without JavaScript: the public article page follows each setting', async ({ page }) => {
  const { domain, kb, cat, first } = await setup(page);
  const article = url(`/hc/${kb.slug}/articles/${first.id}-${first.slug}`, domain);
  await page.goto(article);
  await expect(page.getByText('Was this helpful?')).toBeVisible();
  await expect(page.getByTestId('hc-article-meta')).toContainText('Last updated');
  await expect(page.getByRole('heading', { name: 'Related articles' })).toBeVisible();

  await page.goto(url(`/knowledgebase/${kb.id}/advance`, domain));
  await expect(page.getByRole('heading', { name: 'Advanced' })).toBeVisible();
  await page.getByLabel('Ask "Was this helpful?"').uncheck();
  await page.getByLabel('Show when the article was last updated').uncheck();
  await page.getByLabel('Show how many times the article was viewed').check();
  await page.getByLabel('Show up to 5 related articles').uncheck();
  await page.getByLabel('Order of articles on the home and category pages').selectOption({ label: 'Title A–Z' });
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(toast(page)).toHaveText('Settings Updated');
  await expect(page.getByLabel('Show how many times the article was viewed')).toBeChecked();

  await page.goto(article);
  await expect(page.getByText('Was this helpful?')).toHaveCount(0);
  await expect(page.getByTestId('hc-article-meta')).toHaveText(/^Viewed \d+ times$/);
  await expect(page.getByRole('heading', { name: 'Related articles' })).toHaveCount(0);
  await page.goto(url(`/hc/${kb.slug}/categories/${cat.id}-${cat.slug}`, domain));
  await expect(page.locator('main .hc-list > li > a')).toHaveText(['Apple refunds', 'Zebra invoices']);
});

test('Version Control without JavaScript: recent versions with compare links, and the kept-versions limit with its messages', async ({ page }) => {
  const { domain, kb, first } = await setup(page);
  await page.goto(url(`/knowledgebase/${kb.id}/version-control`, domain));
  const table = page.getByTestId('recent-versions');
  await expect(table.getByRole('row')).toHaveCount(4);
  await expect(table.getByRole('row').nth(1)).toContainText('Zebra invoices');
  await expect(table.getByRole('row').nth(1)).toContainText('Version 2');
  await table.getByRole('link', { name: 'Compare with previous: version 2 of Zebra invoices' }).click();
  await expect(page).toHaveURL(new RegExp(`/articles/${first.id}/version-control/\\d+-\\d+$`));
  await page.goBack();

  await page.getByLabel('Number of versions to keep').fill('1');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(fieldError(page, 'Keep at least 2 versions, so that two can be compared')).toBeVisible();
  await page.getByLabel('Number of versions to keep').fill('2.5');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(fieldError(page, 'Enter a whole number')).toBeVisible();
  await page.getByLabel('Number of versions to keep').fill('20');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(toast(page)).toHaveText('Settings Updated');
  await expect(page.getByLabel('Number of versions to keep')).toHaveValue('20');
});
