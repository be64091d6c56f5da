import { expect, test, type Page } from '@playwright/test';
import { ensureDefaultFolder } from '../../../app/models/surveys/folders.server';
import { appendQuestion } from '../../../app/models/surveys/questions.server';
import { createSurvey, updateSurvey } from '../../../app/models/surveys/surveys.server';
import { QUESTION_TYPES } from '../../../app/models/surveys/constants';
import { createTestAccount } from '../../factories';
import { signIn, url } from '../helpers';

async function noHorizontalScroll(page: Page, where: string) {
  const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  expect(widths.scroll, `${where}: page is ${widths.scroll} px wide in a ${widths.client} px window`).toBeLessThanOrEqual(widths.client);
  const scrollers = await page.evaluate(() =>
    [...document.querySelectorAll('main *')]
      .filter((el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX) && el.scrollWidth > el.clientWidth + 1 && el.tagName !== 'TEXTAREA')
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}`),
  );
  expect(scrollers, where).toEqual([]);
}

test.describe('at 390 × 844', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the survey list and every editor step fit a phone without horizontal scrolling', async ({ page }) => {
    const a = await createTestAccount();
    const who = { accountId: a.account.id, actorId: a.owner.id };
    const general = await ensureDefaultFolder(who);
    const long = 'A survey name long enough to wrap on a narrow phone screen without pushing sideways';
    const web = await createSurvey({ ...who, name: long, folderId: general.id, subType: 'custom', channel: 'web' });
    let list = web.questions;
    for (const type of QUESTION_TYPES.filter((t) => t !== 'welcome')) list = appendQuestion(list, type).list;
    await updateSurvey({ ...who, id: web.id, patch: { questions: list }, step: 'design' });
    const inApp = await createSurvey({ ...who, name: 'In-app CES', folderId: general.id, subType: 'ces', channel: 'in-app' });
    const email = await createSurvey({ ...who, name: 'Quarterly email NPS', folderId: general.id, subType: 'nps', channel: 'email' });
    await signIn(page, a);
    const pages = [
      '/surveys',
      '/surveys?new=web',
      '/surveys?folder-form=new',
      `/surveys/edit/${web.id}/web/design?q=${list[6].id}`,
      `/surveys/edit/${web.id}/web/design?q=${list[9].id}&panel=design`,
      `/surveys/edit/${web.id}/web/design?panel=messages`,
      `/surveys/edit/${web.id}/web/target`,
      `/surveys/edit/${web.id}/web/settings`,
      `/surveys/edit/${web.id}/web/share`,
      `/surveys/edit/${inApp.id}/in-app/design?q=${inApp.questions[1].id}`,
      `/surveys/edit/${inApp.id}/in-app/target`,
      `/surveys/edit/${inApp.id}/in-app/share`,
      `/surveys/edit/${email.id}/email/target`,
      `/surveys/edit/${email.id}/email/settings`,
      `/surveys/${email.id}/results`,
      '/settings/email-survey',
      '/settings/email-survey/new',
      '/settings/chat-survey/new',
    ];
    for (const p of pages) {
      await page.goto(url(p, a.domain));
      await expect(page.locator('main h1').first()).toBeVisible();
      await noHorizontalScroll(page, p);
    }
  });
});
