import { expect, test, type Page } from '@playwright/test';
import { createKnowledgeBase } from '../../../app/models/knowledge-base/knowledge-bases.server';
import { CNAME_MESSAGE, GA_KEY_MESSAGE } from '../../../app/models/knowledge-base/constants';
import { createTestAccount } from '../../factories';
import { fieldError, signIn, url } from '../helpers';

const toast = (page: Page) => page.getByTestId('toast');

// JavaScript is off: every message comes from the server, and a refused form keeps what was typed.
test('help-centre settings without JavaScript: General and SEO messages, saves, and the public site following them', async ({ page }) => {
  const a = await createTestAccount();
  const kb = await createKnowledgeBase({ accountId: a.account.id, actorId: a.owner.id, name: 'Help' });
  await signIn(page, a);

  await page.goto(url(`/knowledgebase/${kb.id}/general`, a.domain));
  await page.getByLabel('Help centre name').fill('ab');
  await page.getByLabel('Custom domain (CNAME)').fill('not a domain');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(fieldError(page, 'Length must be at least 3 characters')).toBeVisible();
  await expect(fieldError(page, CNAME_MESSAGE)).toBeVisible();
  await expect(page.getByLabel('Custom domain (CNAME)')).toHaveValue('not a domain');
  await page.getByLabel('Help centre name').fill('Acme Help Centre');
  await page.getByLabel('Custom domain (CNAME)').fill('help.acme.test');
  await page.getByLabel('Language').selectOption({ label: 'German' });
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(toast(page)).toHaveText('Knowledgebase Updated');
  await expect(page.getByLabel('Language')).toHaveValue('de');

  await page.goto(url(`/knowledgebase/${kb.id}/seo`, a.domain));
  await page.getByLabel('Google Analytics key').fill('12345');
  await page.getByLabel('SEO title').fill('ab');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(fieldError(page, GA_KEY_MESSAGE)).toBeVisible();
  await expect(fieldError(page, 'Length must be at least 3 characters')).toBeVisible();
  await page.getByLabel('Google Analytics key').fill('');
  await page.getByLabel('SEO title').fill('Acme answers');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(toast(page)).toHaveText('Knowledgebase Updated');

  await page.goto(url(`/hc/${kb.slug}`, a.domain));
  await expect(page).toHaveTitle('Acme answers');
  await expect(page.getByRole('link', { name: 'Acme Help Centre' })).toBeVisible();

  // Switched off, the help centre is gone for everyone.
  await page.goto(url(`/knowledgebase/${kb.id}/general`, a.domain));
  await page.getByLabel('Help centre is public').uncheck();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(toast(page)).toHaveText('Knowledgebase Updated');
  const gone = await page.goto(url(`/hc/${kb.slug}`, a.domain));
  expect(gone?.status()).toBe(404);
});
