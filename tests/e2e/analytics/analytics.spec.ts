import { expect, test } from '@playwright/test';
import { projectEvents } from '../../../app/models/analytics/projection.server';
import { ANALYTICS_PAGES } from '../../../app/models/analytics/pages';
import { createTestAccount } from '../../factories';
import { HISTORY_FROM, HISTORY_TO, seedHandMadeHistory } from '../../integration/analytics-history';
import { seedAreaHistory } from '../../integration/analytics-area-history';
import { signIn, url } from '../helpers';

test.use({ javaScriptEnabled: false });

test('every built report renders its headlines, charts and tables without JavaScript, with a date range and a filter', async ({ page }) => {
  test.setTimeout(180_000);
  const a = await createTestAccount();
  const h = await seedHandMadeHistory({ accountId: a.account.id, agentId: a.owner.id });
  const area = await seedAreaHistory({ accountId: a.account.id, agentId: a.owner.id });
  await projectEvents({ eventIds: [...h.eventIds, ...area.eventIds] });
  await signIn(page, a);
  await page.goto(url('/analytics', a.domain));
  await expect(page).toHaveURL(url('/analytics/overview', a.domain));

  for (const p of ANALYTICS_PAGES.filter((x) => x.built)) {
    const filter = p.filters.includes('inbox') ? `&filter=inbox:${h.inboxA.id}` : '';
    await page.goto(url(`/analytics/${p.slug}?range=custom&from=${HISTORY_FROM}&to=${HISTORY_TO}${filter}`, a.domain));
    await expect(page.getByRole('heading', { level: 1, name: p.title })).toBeVisible();
    await expect(page.getByTestId('range-summary')).toContainText(`${HISTORY_FROM} to ${HISTORY_TO}`);
    await expect(page.getByTestId('headlines')).toBeVisible();
    await expect(page.locator('figure.report-chart svg').first()).toBeVisible();
    await expect(page.locator('figure.report-chart table').first()).toBeVisible();
    if (filter) await expect(page.getByLabel('Filter', { exact: true })).toHaveValue(`inbox:${h.inboxA.id}`);
  }
  // The overview filtered to the Support inbox: its two conversations.
  await page.goto(url(`/analytics/overview?range=custom&from=${HISTORY_FROM}&to=${HISTORY_TO}&filter=inbox:${h.inboxA.id}`, a.domain));
  await expect(page.getByTestId('headline-Conversations')).toHaveText('2');
  // The forms report of the hand-made history (ADR 102): 5 views, 2 submissions.
  await page.goto(url(`/analytics/forms?range=custom&from=${HISTORY_FROM}&to=${HISTORY_TO}`, a.domain));
  await expect(page.getByTestId('headline-Submissions')).toHaveText('2');

  const missing = ANALYTICS_PAGES.find((x) => !x.built);
  if (missing) {
    await page.getByTestId(`menu-${missing.slug}`).click();
    await expect(page.getByTestId('not-built')).toContainText('not built yet');
  }
});
