import { expect, test } from '@playwright/test';
import { seedScreensAccount } from '../a11y/screens';
import { signIn, url } from '../helpers';

test.use({ viewport: { width: 390, height: 844 } });

test('knowledge base screens and the public help centre do not scroll sideways at 390 px', async ({ page }) => {
  test.setTimeout(120_000);
  const a = await seedScreensAccount();
  const publicPaths = ['/hc/{kbSlug}', '/hc/{kbSlug}/articles/{kbArticlePath}', '/hc/{kbSlug}/search?q=invoice'];
  for (const path of publicPaths) {
    await page.goto(url(a.fill(path), a.domain));
    expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390);
  }
  await signIn(page, a);
  for (const path of [
    '/knowledgebase',
    '/knowledgebase/{kb}/articles',
    '/knowledgebase/{kb}/articles/{kbArticle}',
    '/knowledgebase/{kb}/articles/{kbArticle}/version-control/{kbVersions}',
    '/knowledgebase/{kb}/categories',
    '/knowledgebase/{kb}/customization',
    '/knowledgebase/{kb}/advance',
    '/knowledgebase/{kb}/version-control',
  ]) {
    await page.goto(url(a.fill(path), a.domain));
    expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390);
  }
});
