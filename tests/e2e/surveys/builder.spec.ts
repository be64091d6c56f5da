import { expect, test, type Page } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { QUESTION_TYPE_LABELS, QUESTION_TYPES, SUB_TYPE_LABELS, SURVEY_SUB_TYPES } from '../../../app/models/surveys/constants';
import { createTestAccount } from '../../factories';
import { fieldError, hydrated, signIn, url } from '../helpers';

const toast = (page: Page) => page.getByTestId('toast');

async function createSurvey(page: Page, domain: string, channel: 'Web' | 'In-App' | 'Email', name: string, subType: string) {
  await page.goto(url('/surveys', domain));
  await page.locator('summary', { hasText: 'Create Survey' }).click();
  await page.getByRole('link', { name: channel, exact: true }).click();
  await page.getByLabel('Survey Name').fill(name);
  await page.getByLabel('Folder', { exact: true }).selectOption({ label: 'General' });
  await page.getByRole('radio', { name: subType, exact: true }).check();
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(toast(page)).toHaveText('Survey Created Successfully');
  await expect(page).toHaveURL(/\/surveys\/edit\/\d+\/[a-z-]+\/design$/);
  return Number(new URL(page.url()).pathname.split('/')[3]);
}

const surveyRow = async (id: number) => (await getDb().select().from(schema.surveys).where(eq(schema.surveys.id, id)))[0];

test('survey builder without JavaScript: create (messages), every question type, reorder, design and messages, target, settings, share, publish', async ({ page }) => {
  test.setTimeout(180_000);
  const a = await createTestAccount();
  await signIn(page, a);
  await page.getByRole('navigation').getByRole('link', { name: 'Surveys', exact: true }).click();
  await expect(page).toHaveURL(url('/surveys', a.domain));
  await expect(page.getByTestId('no-surveys')).toBeVisible();

  // The create dialog's messages (section 5).
  await page.locator('summary', { hasText: 'Create Survey' }).click();
  await page.getByRole('link', { name: 'Web', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Create Web Survey' })).toBeVisible();
  await page.getByLabel('Survey Name').fill('ab');
  await page.getByLabel('Folder', { exact: true }).selectOption({ label: 'Select a Folder' });
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, 'Survey Name is required.')).toBeVisible();
  await expect(fieldError(page, 'Must select a Folder.')).toBeVisible();
  await expect(fieldError(page, 'Please select a Survey Type')).toBeVisible();
  await expect(page.getByLabel('Survey Name')).toHaveValue('ab');

  const id = await createSurvey(page, a.domain, 'Web', 'Checkout experience', 'NPS');
  const cards = page.getByRole('list', { name: 'Questions' }).getByRole('listitem');
  await expect(cards).toHaveCount(2);
  // A traditional web survey previews every question on one page.
  await expect(page.getByTestId('preview')).toHaveAttribute('data-theme', 'traditional');
  await expect(page.getByTestId('preview-question')).toHaveCount(2);
  await expect(page.getByTestId('preview').getByRole('button', { name: 'Submit Survey' })).toBeDisabled();
  // The first question cannot be deleted.
  await expect(page.getByRole('button', { name: 'Delete question 1' })).toBeDisabled();

  // One question of each type (the welcome one is already there).
  const added = QUESTION_TYPES.filter((t) => t !== 'welcome');
  for (const type of added) {
    await page.getByTestId(`add-${type}`).click();
    await expect(page.getByTestId('question-editor')).toContainText(`Edit ${QUESTION_TYPE_LABELS[type]} question`);
  }
  await expect(cards).toHaveCount(2 + added.length);
  expect((await surveyRow(id)).questions.map((q) => q.type)).toEqual(['welcome', 'nps', ...added]);
  await expect(page.locator('[data-selected] [data-testid="preview-question"]')).toHaveAttribute('data-type', 'ces');

  // Edit the selected question (CES: 0 to 3, 5 or 7) and a radio question's options.
  await page.getByLabel('Question', { exact: true }).fill('It was easy to pay.');
  await page.getByRole('radio', { name: '0 to 5', exact: true }).check();
  await page.getByLabel('Show an introduction').check();
  await page.getByTestId('save').click();
  await expect(fieldError(page, 'Please Enter Value')).toBeVisible();
  await expect(page.getByLabel('Question', { exact: true })).toHaveValue('It was easy to pay.');
  await page.getByLabel('Introduction', { exact: true }).fill('Last one');
  await page.getByTestId('save').click();
  await expect(toast(page)).toHaveText('Survey Updated Successfully');
  const ces = (await surveyRow(id)).questions.at(-1)!;
  expect(ces).toMatchObject({ question: 'It was easy to pay.', heading: 'Last one', settings: { range: 5 } });

  await page.getByRole('button', { name: /Single Choice ·/ }).click();
  await expect(page.getByTestId('question-editor')).toContainText('Edit Single Choice question');
  await page.getByLabel('Option 1', { exact: true }).fill('x'.repeat(51));
  await page.getByTestId('save').click();
  await expect(fieldError(page, 'Length must be less than or equal to 50 characters')).toBeVisible();
  await expect(page.getByLabel('Option 1', { exact: true })).toHaveValue('x'.repeat(51));
  await page.getByLabel('Option 1', { exact: true }).fill('Card');
  await page.getByRole('button', { name: '+ Add option' }).click();
  await expect(page.getByLabel('Option 4', { exact: true })).toHaveValue('Option 4');
  await page.getByRole('button', { name: 'Remove option 2' }).click();
  await expect(page.getByLabel('Option 4', { exact: true })).toHaveCount(0);
  const radio = (await surveyRow(id)).questions.find((q) => q.type === 'radio')!;
  expect(radio.settings.options!.map((o) => o.choice)).toEqual(['Card', 'Option 3', 'Option 4']);

  // Reorder: the 6th question (radio) moves up; the welcome one stays first.
  const before = (await surveyRow(id)).questions.map((q) => q.type);
  await page.getByRole('button', { name: 'Move question 6 up' }).click();
  await expect(page.getByTestId('question-4')).toHaveAttribute('data-type', before[5]);
  const after = (await surveyRow(id)).questions.map((q) => q.type);
  expect(after.slice(0, 6)).toEqual([...before.slice(0, 4), before[5], before[4]]);
  await expect(page.getByRole('button', { name: 'Move question 2 up' })).toBeDisabled();
  // Clone and delete.
  await page.getByRole('button', { name: 'Clone question 3' }).click();
  await expect(toast(page)).toHaveText('Question Cloned Successfully');
  await expect(cards).toHaveCount(3 + added.length);
  await page.getByRole('button', { name: 'Delete question 4' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(toast(page)).toHaveText('Question Deleted Successfully');
  await expect(cards).toHaveCount(2 + added.length);

  // Design panel and messages.
  await page.locator('summary', { hasText: 'Design' }).click();
  await page.getByLabel('Header', { exact: true }).fill('How did checkout go?');
  await page.getByLabel('Survey Footer').check();
  await page.getByLabel('Footer text').fill('Thanks from the Acme team');
  await page.getByRole('radio', { name: 'Conversational' }).check();
  await page.getByRole('radio', { name: 'teal' }).check();
  await page.locator('summary', { hasText: 'Messages' }).click();
  await page.getByLabel('Proceed to next').fill('Continue now!');
  await page.getByTestId('save').click();
  await expect(fieldError(page, 'Length must be less than or equal to 10 characters')).toBeVisible();
  await expect(page.getByLabel('Proceed to next')).toHaveValue('Continue now!');
  await expect(page.getByLabel('Header', { exact: true })).toHaveValue('How did checkout go?');
  await page.getByLabel('Proceed to next').fill('Continue');
  await page.getByLabel('Completion message').fill('Thanks, see you soon');
  await page.getByTestId('save').click();
  await expect(toast(page)).toHaveText('Survey Updated Successfully');
  const designed = await surveyRow(id);
  expect(designed.design).toMatchObject({ header: 'How did checkout go?', footer: 'Thanks from the Acme team', themeType: 'conversational', brandColor: '#0D9488' });
  expect(designed.messages).toMatchObject({ proceedToNext: 'Continue', completion: 'Thanks, see you soon' });
  // The footer switched off clears it.
  await page.locator('summary', { hasText: 'Design' }).click();
  await page.getByLabel('Survey Footer').uncheck();
  await page.getByTestId('save').click();
  await expect(toast(page)).toHaveText('Survey Updated Successfully');
  expect((await surveyRow(id)).design.footer).toBe('');

  // Logo: too large, then a real one.
  await page.locator('summary', { hasText: 'Design' }).click();
  await page.getByLabel('Logo file').setInputFiles({ name: 'big.png', mimeType: 'image/png', buffer: Buffer.alloc(2 * 1024 * 1024) });
  await page.getByRole('button', { name: 'Upload' }).click();
  await expect(page.getByTestId('logo-error')).toHaveText('File size must be less than 2mb.');
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
  // An edit not yet saved goes with the upload: the step is saved first.
  await page.getByLabel('Header', { exact: true }).fill('How was checkout today?');
  await page.getByLabel('Logo file').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: png });
  await page.getByRole('button', { name: 'Upload' }).click();
  await expect(toast(page)).toHaveText('Logo successfully uploaded');
  await expect(page.getByRole('img', { name: 'Survey logo' })).toBeVisible();
  expect((await surveyRow(id)).logoAttachmentId).not.toBeNull();
  expect((await surveyRow(id)).design.header).toBe('How was checkout today?');
  await page.getByRole('button', { name: 'Remove logo' }).click();
  await expect(toast(page)).toHaveText('Logo Successfully Removed');
  expect((await surveyRow(id)).logoAttachmentId).toBeNull();
  await page.getByLabel('Logo file').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: png });
  await page.getByRole('button', { name: 'Upload' }).click();
  await expect(toast(page)).toHaveText('Logo successfully uploaded');
  // The logo route serves the picture itself (1 × 1 pixel).
  await expect.poll(() => page.getByRole('img', { name: 'Survey logo' }).evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);

  // Next saves and moves: target (web).
  await page.getByTestId('primary').click();
  await expect(page).toHaveURL(new RegExp(`/surveys/edit/${id}/web/target$`));
  await expect(page.getByRole('button', { name: 'Back' })).toBeVisible();
  await page.getByLabel('Allow retaking the survey').check();
  await page.getByTestId('primary').click();
  await expect(toast(page)).toHaveText('Survey Updated Successfully');
  await expect(page).toHaveURL(new RegExp(`/surveys/edit/${id}/web/settings$`));
  expect((await surveyRow(id)).target.allowRetaking).toBe(true);

  // Settings: limits and messages.
  await page.getByLabel('Survey Name').fill('ab');
  await page.getByLabel('Response limit').check();
  await page.getByLabel('Stop after this many responses').fill('1001');
  await page.getByTestId('primary').click();
  await expect(fieldError(page, 'Survey Name is required.')).toBeVisible();
  await expect(fieldError(page, 'Response limit must be 0 to 1000')).toBeVisible();
  await page.getByLabel('Survey Name').fill('Checkout experience 2026');
  await page.getByLabel('Stop after this many responses').fill('200');
  await page.getByLabel('Language').selectOption({ label: 'French' });
  await page.getByTestId('primary').click();
  await expect(page).toHaveURL(new RegExp(`/surveys/edit/${id}/web/share$`));
  expect(await surveyRow(id)).toMatchObject({ name: 'Checkout experience 2026', responseLimit: 200, language: 'FR' });

  // Share: the web link; Publish.
  const row = await surveyRow(id);
  await expect(page.getByTestId('share-link')).toHaveValue(url(`/survey/web/${a.account.id}/${row.uniqueId}`, a.domain));
  await expect(page.getByTestId('primary')).toHaveText('Publish');
  await page.getByTestId('primary').click();
  await expect(page).toHaveURL(url('/surveys', a.domain));
  await expect(toast(page)).toHaveText('Survey Published Successfully');
  await expect(page.getByTestId(`survey-${id}`).getByTestId('survey-status')).toHaveText('Published');
  const published = await surveyRow(id);
  expect(published.status).toBe('published');
  expect(published.publishedVersionId).not.toBeNull();
});

test('every sub type and channel: in-app target and share, email steps, folders, clone, close, delete', async ({ page }) => {
  test.setTimeout(180_000);
  const a = await createTestAccount();
  await signIn(page, a);
  const channels = ['Web', 'In-App', 'Email'] as const;
  const ids: number[] = [];
  for (const [i, subType] of SURVEY_SUB_TYPES.entries()) {
    ids.push(await createSurvey(page, a.domain, channels[i % 3], `${SUB_TYPE_LABELS[subType]} survey`, SUB_TYPE_LABELS[subType]));
  }
  for (const [i, subType] of SURVEY_SUB_TYPES.entries()) {
    const row = await surveyRow(ids[i]);
    expect(row.subType).toBe(subType);
    expect(row.questions[0].type).toBe('welcome');
  }

  // In-app (CES, the second): theme, target with page conditions and a delay, share snippet and instructions.
  const inApp = ids[1];
  await page.goto(url(`/surveys/edit/${inApp}/in-app/design`, a.domain));
  await expect(page.getByTestId('preview-empty')).toHaveText('Please Choose a Question from Left Side and you can see the preview here.');
  await page.getByRole('button', { name: /CES ·/ }).click();
  await expect(page.getByTestId('preview-question')).toHaveAttribute('data-type', 'ces');
  await page.locator('summary', { hasText: 'Design' }).click();
  await page.getByRole('radio', { name: 'Pop-over' }).check();
  await page.getByRole('radio', { name: 'Right' }).check();
  await page.getByTestId('primary').click();
  await expect(page).toHaveURL(new RegExp(`/surveys/edit/${inApp}/in-app/target$`));
  expect((await surveyRow(inApp)).design).toMatchObject({ themeType: 'pop-over', position: 'right' });
  await page.getByRole('radio', { name: 'Only certain pages' }).check();
  await page.getByRole('button', { name: '+ Add condition' }).click();
  await page.getByLabel('Condition 1', { exact: true }).selectOption({ label: 'Starts with' });
  await page.getByLabel('Link').fill('/pricing');
  await page.getByRole('radio', { name: 'After a delay' }).check();
  await page.getByLabel('Delay (seconds)').fill('3601');
  await page.getByTestId('save').click();
  await expect(fieldError(page, 'Delay must be 0 to 3600 seconds')).toBeVisible();
  await expect(page.getByLabel('Link')).toHaveValue('/pricing');
  await page.getByLabel('Delay (seconds)').fill('');
  await page.getByTestId('save').click();
  await expect(fieldError(page, 'Please Enter Value')).toBeVisible();
  await page.getByLabel('Delay (seconds)').fill('15');
  await page.getByTestId('save').click();
  await expect(toast(page)).toHaveText('Survey Updated Successfully');
  expect((await surveyRow(inApp)).target).toMatchObject({
    showOnAllPages: false,
    allowedPages: [{ link: '/pricing', linkType: 'start' }],
    displayMethod: 'delay',
    displayDelay: 15,
    displayScroll: null,
  });
  await page.goto(url(`/surveys/edit/${inApp}/in-app/share`, a.domain));
  await expect(page.getByTestId('no-messenger')).toBeVisible();

  // Email (NPS, the third): no Share tab, Publish on Settings; tags are needed.
  const email = ids[2];
  await page.goto(url(`/surveys/edit/${email}/email/design`, a.domain));
  await expect(page.getByRole('navigation', { name: 'Steps' }).getByRole('button')).toHaveText(['Design', 'Target', 'Settings']);
  await page.goto(url(`/surveys/edit/${email}/email/target`, a.domain));
  await page.getByTestId('primary').click();
  await expect(fieldError(page, 'please select tag ids')).toBeVisible();
  await page.goto(url(`/surveys/edit/${email}/email/settings`, a.domain));
  await expect(page.getByTestId('primary')).toHaveText('Publish');

  // Folders: name limits, a private one, move a survey there from Settings.
  await page.goto(url('/surveys', a.domain));
  await page.getByTestId('new-folder').click();
  await page.getByLabel('Folder Name').fill('ab');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(fieldError(page, 'Folder name must be 3 to 20 characters.')).toBeVisible();
  await page.getByLabel('Folder Name').fill('Leadership');
  await page.getByRole('checkbox', { name: /Public/ }).uncheck();
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(toast(page)).toHaveText('Folder Created');
  await expect(page.getByTestId('folder-Leadership')).toContainText('private');
  await page.getByRole('link', { name: 'Edit folder Leadership' }).click();
  await page.getByLabel('Folder Name').fill('Leaders');
  await page.getByRole('button', { name: 'Update', exact: true }).click();
  await expect(toast(page)).toHaveText('Folder Updated');
  // A survey moves to it from Settings.
  await page.goto(url(`/surveys/edit/${ids[3]}/web/settings`, a.domain));
  await page.getByLabel('Folder', { exact: true }).selectOption({ label: 'Leaders' });
  await page.getByTestId('save').click();
  await expect(toast(page)).toHaveText('Survey Updated Successfully');
  await page.goto(url('/surveys', a.domain));
  await page.getByTestId('folder-Leaders').getByRole('link', { name: 'Leaders', exact: true }).click();
  await expect(page.getByTestId('surveys').getByRole('row')).toHaveCount(2);

  // Clone, search, close, delete.
  const web = ids[0];
  await page.goto(url('/surveys', a.domain));
  await page.getByRole('button', { name: `Clone CSAT survey` }).click();
  await expect(toast(page)).toHaveText('Survey Cloned');
  await page.getByRole('searchbox', { name: 'Search surveys' }).fill('copy of');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.getByTestId('surveys').getByRole('row')).toHaveCount(2);
  await page.goto(url('/surveys', a.domain));
  await page.getByRole('button', { name: 'Delete Smiley survey' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(toast(page)).toHaveText('Survey Deleted');
  expect(await surveyRow(ids[4])).toBeUndefined();
  // Publish the web CSAT survey from its share step, then close it from the list.
  await page.goto(url(`/surveys/edit/${web}/web/share`, a.domain));
  await page.getByTestId('primary').click();
  await expect(toast(page)).toHaveText('Survey Published Successfully');
  await page.getByTestId(`survey-${web}`).getByRole('button', { name: 'Close' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
  await expect(page.getByTestId(`survey-${web}`).getByTestId('survey-status')).toHaveText('Closed');
  // A custom survey with only its welcome question cannot be published.
  await page.goto(url(`/surveys/edit/${ids[5]}/email/settings`, a.domain));
  await page.getByTestId('primary').click();
  await expect(page.getByTestId('editor-error')).toHaveText('Add at least one question before publishing.');
});

test.describe('with JavaScript', () => {
  test.use({ javaScriptEnabled: true });

  test('Save waits for a change, the preview follows typing, placeholders go in at the cursor, buttons still save and move', async ({ page }) => {
    test.setTimeout(90_000);
    const a = await createTestAccount();
    await signIn(page, a);
    const id = await createSurvey(page, a.domain, 'Email', 'Quarterly CSAT', 'CSAT');
    await hydrated(page);
    await expect(page.getByTestId('save')).toBeDisabled();
    // Pick the CSAT question: the email preview shows header and sub-header for it.
    await page.getByRole('button', { name: /CSAT ·/ }).click();
    await expect(page.getByTestId('question-editor')).toContainText('Edit CSAT question');
    await expect(page.getByTestId('save')).toBeDisabled();
    await page.getByLabel('Question', { exact: true }).fill('How happy are you with us?');
    await expect(page.getByTestId('save')).toBeEnabled();
    await expect(page.getByTestId('preview-question')).toContainText('How happy are you with us?');
    await page.locator('summary', { hasText: 'Design' }).click();
    await page.getByLabel('Header', { exact: true }).fill('Hello ');
    await page.getByRole('button', { name: 'Insert {{NAME}}' }).click();
    await expect(page.getByLabel('Header', { exact: true })).toHaveValue('Hello {{NAME}}');
    await expect(page.getByTestId('preview')).toContainText('Hello {{NAME}}');
    await page.getByTestId('save').click();
    await expect(toast(page)).toHaveText('Survey Updated Successfully');
    await expect(page.getByTestId('save')).toBeDisabled();
    const row = await surveyRow(id);
    expect(row.design.header).toBe('Hello {{NAME}}');
    expect(row.questions[1].question).toBe('How happy are you with us?');
    // A question added with JavaScript, then Next.
    await page.locator('summary', { hasText: 'Choose Components' }).click();
    await page.getByTestId('add-date').click();
    await expect(page.getByTestId('question-editor')).toContainText('Edit Date question');
    await page.getByTestId('primary').click();
    await expect(page).toHaveURL(new RegExp(`/surveys/edit/${id}/email/target$`));
    expect((await surveyRow(id)).questions.map((q) => q.type)).toEqual(['welcome', 'csat', 'date']);
    // The list searches as you type.
    await page.goto(url('/surveys', a.domain));
    await hydrated(page);
    await page.getByRole('searchbox', { name: 'Search surveys' }).fill('quarterly');
    await expect(page).toHaveURL(/q=quarterly/);
    await expect(page.getByTestId('surveys').getByRole('row')).toHaveCount(2);
  });
});
