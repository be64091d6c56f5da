import { expect, test } from '@playwright/test';
import { projectEvents } from '../../../app/models/analytics/projection.server';
import { ANALYTICS_PAGES } from '../../../app/models/analytics/pages';
import { createTestAccount } from '../../factories';
import { HISTORY_FROM, HISTORY_TO, seedHandMadeHistory } from '../../integration/analytics-history';
import { seedAreaHistory } from '../../integration/analytics-area-history';
import { signIn, url } from '../helpers';

test.use({ viewport: { width: 390, height: 844 } });

/** Every analytics screen and the Conversions editors on a 390 px phone: nothing wider than the screen (issue 21). */
test('the analytics pages and Settings → Conversions fit a 390 px phone without horizontal scrolling', async ({ page }) => {
  test.setTimeout(240_000);
  const a = await createTestAccount();
  const h = await seedHandMadeHistory({ accountId: a.account.id, agentId: a.owner.id });
  const area = await seedAreaHistory({ accountId: a.account.id, agentId: a.owner.id });
  await projectEvents({ eventIds: [...h.eventIds, ...area.eventIds] });
  await signIn(page, a);
  const paths = [
    ...ANALYTICS_PAGES.map((p) => `/analytics/${p.slug}?range=custom&from=${HISTORY_FROM}&to=${HISTORY_TO}`),
    '/settings/goals',
    '/settings/goals/add',
    '/settings/sales-tracker',
    '/settings/sales-tracker/add',
  ];
  for (const path of paths) {
    await page.goto(url(path, a.domain));
    await expect(page.locator('h1').first()).toBeVisible();
    const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: window.innerWidth }));
    expect(widths.page, path).toBeLessThanOrEqual(widths.screen);
  }
});
