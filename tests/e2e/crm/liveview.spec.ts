import { expect, test } from '@playwright/test';
import { recordPageView } from '../../../app/models/crm/page-views.server';
import { createTestAccount } from '../../factories';
import { signIn, url } from '../helpers';

test('the live view shows a new visitor without a reload when JavaScript is on, and on reload when it is off', async ({ browser }) => {
  const a = await createTestAccount();
  const live = await browser.newContext({ javaScriptEnabled: true });
  const page = await live.newPage();
  await signIn(page, a);
  await page.goto(url('/customers/liveview', a.domain));
  await expect(page.getByTestId('empty')).toBeVisible();
  await expect(page.getByTestId('connectivity')).toHaveAttribute('data-state', 'online');
  // A mark on the window: a reload would wipe it.
  await page.evaluate(() => ((window as unknown as { __mark: number }).__mark = 1));
  await recordPageView({ accountId: a.account.id, visitorId: 'visitor-1', url: 'https://shop.example/pricing', title: 'Pricing page', referrer: 'https://search.example/', country: 'Chile' });
  await expect(page.getByTestId('live-visitors')).toContainText('Pricing page');
  await expect(page.getByTestId('live-visitors')).toContainText('Chile');
  expect(await page.evaluate(() => (window as unknown as { __mark?: number }).__mark)).toBe(1);
  await live.close();

  const plain = await browser.newContext({ javaScriptEnabled: false });
  const noJs = await plain.newPage();
  await signIn(noJs, a);
  await noJs.goto(url('/customers/liveview', a.domain));
  await expect(noJs.getByTestId('live-visitors')).toContainText('Pricing page');
  await recordPageView({ accountId: a.account.id, visitorId: 'visitor-2', url: 'https://shop.example/blog', title: 'Blog post' });
  await noJs.getByRole('link', { name: 'Refresh' }).click();
  await expect(noJs.getByTestId('live-visitors')).toContainText('Blog post');
  await expect(noJs.getByTestId('live-count')).toHaveText('2 visitors on your site in the last 2 minutes.');
  await plain.close();
});
