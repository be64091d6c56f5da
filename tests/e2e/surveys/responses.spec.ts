import { expect, test } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { createTestAccount } from '../../factories';
import { publishedSurvey } from '../../helpers/surveys';
import { signIn, url } from '../helpers';

/** Web surveys answered with JavaScript off, in both formats, and the figures on the results page. */
test.use({ javaScriptEnabled: false });

test('answer a traditional and a conversational web survey without JavaScript, then read NPS, CSAT and CES on the results', async ({ page, browser }) => {
  test.setTimeout(120_000);
  const a = await createTestAccount();
  const who = { accountId: a.account.id, actorId: a.owner.id };
  const traditional = await publishedSurvey({ ...who, name: 'Store visit', types: ['csat', 'ces', 'text', 'checkbox', 'dropdown', 'date'] });
  const conversational = await publishedSurvey({ ...who, name: 'Chat follow-up', themeType: 'conversational', types: ['smiley', 'radio'] });

  const respondent = await browser.newContext({ javaScriptEnabled: false });
  const r = await respondent.newPage();

  // Traditional: everything on one page; a missing answer gets the required message and keeps what was chosen.
  await r.goto(url(`/survey/web/${a.account.id}/${traditional.survey.uniqueId}`, a.domain));
  await expect(r.getByRole('heading', { name: 'Customer Experience Survey' })).toBeVisible();
  const nps = r.getByRole('group', { name: /recommend us/ });
  await nps.getByText('9', { exact: true }).click();
  await r.getByRole('button', { name: 'Submit Survey' }).click();
  await expect(r.getByText('This is a required question.').first()).toBeVisible();
  await expect(r.getByRole('group', { name: /recommend us/ }).getByRole('radio', { name: '9' })).toBeChecked();
  await r
    .getByRole('group', { name: /satisfied are you/ })
    .getByRole('radio', { name: 'Happy', exact: true })
    .check({ force: true });
  await r
    .getByRole('group', { name: /easy for me/ })
    .getByText('6', { exact: true })
    .click();
  await r.getByRole('textbox', { name: /anything else/ }).fill('The staff were lovely');
  await r.getByRole('checkbox', { name: 'Option 2' }).check();
  await r.getByRole('combobox', { name: /hear about us/ }).selectOption('Option 1');
  await r.getByRole('textbox', { name: /first use our product/ }).fill('2026-10-01');
  await r.getByRole('button', { name: 'Submit Survey' }).click();
  await expect(r.getByText('Thank you for finishing our Survey')).toBeVisible();

  // Conversational: one question per page, progress without the welcome, Previous and Next.
  await r.goto(url(`/survey/web/${a.account.id}/${conversational.survey.uniqueId}`, a.domain));
  await r.getByRole('button', { name: 'Start' }).click();
  await expect(r.getByTestId('survey-progress')).toContainText('1/3');
  await r.getByText('10', { exact: true }).click();
  await r.getByRole('button', { name: 'Next' }).click();
  await expect(r.getByTestId('survey-progress')).toContainText('2/3');
  await expect(r.locator('.sv-a')).toHaveText('10');
  await r.getByRole('button', { name: 'Previous' }).click();
  await expect(r.getByRole('radio', { name: '10' })).toBeChecked();
  await r.getByRole('button', { name: 'Next' }).click();
  await r.getByRole('button', { name: 'Next' }).click();
  await expect(r.getByText('This is a required question.')).toBeVisible();
  await r.getByRole('radio', { name: 'Very happy' }).check({ force: true });
  await r.getByRole('button', { name: 'Next' }).click();
  await expect(r.getByTestId('survey-progress')).toContainText('3/3');
  await r.getByRole('radio', { name: 'Option 3' }).check();
  await r.getByRole('button', { name: 'Submit' }).click();
  await expect(r.getByText('Thank you for finishing our Survey')).toBeVisible();
  await respondent.close();

  const rows = await getDb().select().from(schema.surveyResponses).where(eq(schema.surveyResponses.accountId, a.account.id));
  expect(rows.map((x) => x.complete)).toEqual([true, true]);

  // The results, as the owner sees them.
  await signIn(page, a);
  await page.goto(url('/surveys', a.domain));
  await page.getByRole('link', { name: 'Results of Store visit' }).click();
  await expect(page.getByRole('heading', { name: /Store visit/ })).toBeVisible();
  await expect(page.getByTestId('total-responses')).toContainText('1');
  await expect(page.getByTestId('nps-score')).toContainText('100');
  await expect(page.getByTestId('csat-score')).toContainText('100%');
  await expect(page.getByTestId('ces-score')).toContainText('6');
  await expect(page.getByText('The staff were lovely')).toBeVisible();
  await page.getByLabel('Channel').selectOption('in-app');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByTestId('total-responses')).toContainText('0');
  await page.goto(url(`/surveys/${conversational.survey.id}/results`, a.domain));
  await expect(page.getByTestId('nps-score')).toContainText('100');
  await expect(page.getByTestId('completion-rate')).toContainText('100%');
});

test.describe('at 390 × 844', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the web survey in both formats and the results page fit a phone without sideways scrolling', async ({ page, browser }) => {
    const a = await createTestAccount();
    const who = { accountId: a.account.id, actorId: a.owner.id };
    const { ALL_TYPES } = await import('../../helpers/surveys');
    const traditional = await publishedSurvey({ ...who, name: 'Every type', subType: 'custom', types: ALL_TYPES });
    const chat = await publishedSurvey({ ...who, name: 'Chat', themeType: 'conversational', types: ['ces', 'text'] });
    const { recordAnswers } = await import('../../../app/models/surveys/responses.server');
    const nps = traditional.version!.questions.find((q) => q.type === 'nps')!.id;
    await recordAnswers({
      accountId: a.account.id,
      surveyId: traditional.survey.id,
      channel: 'web',
      responseKey: 'phone0123456789ab',
      complete: false,
      answers: { [nps]: 9 },
      respondent: { respondentKey: 'p' },
    });
    const fits = async () => {
      const w = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
      expect(w.scroll, `page is ${w.scroll} px wide in a ${w.client} px window`).toBeLessThanOrEqual(w.client);
    };
    const visitor = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
    const v = await visitor.newPage();
    for (const path of [`/survey/web/${a.account.id}/${traditional.survey.uniqueId}`, `/survey/web/${a.account.id}/${chat.survey.uniqueId}?step=1`]) {
      await v.goto(url(path, a.domain));
      const w = await v.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
      expect(w.scroll, path).toBeLessThanOrEqual(w.client);
    }
    await visitor.close();
    await signIn(page, a);
    await page.goto(url(`/surveys/${traditional.survey.id}/results`, a.domain));
    await expect(page.getByTestId('nps-score')).toContainText('100');
    await fits();
  });
});
