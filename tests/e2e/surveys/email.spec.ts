import { expect, test } from '@playwright/test';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { createContact } from '../../../app/models/crm/contacts.server';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { createWebInbox, saveMessengerSection } from '../../../app/models/channels/messenger-settings.server';
import { openConversation, setConversationStatus } from '../../../app/models/inbox/conversations.server';
import { createTag } from '../../../app/models/productivity/tags.server';
import { updateSurvey } from '../../../app/models/surveys/surveys.server';
import { createTestAccount, TEST_PASSWORD } from '../../factories';
import { publishedSurvey } from '../../helpers/surveys';
import { latestMail, signIn, url } from '../helpers';

/** Email surveys and the rating email after a resolve, with JavaScript off (issue 15). */
test.use({ javaScriptEnabled: false });

test('upload a recipient list (and see a bad file refused), schedule the survey, open the delivered email, click a score, finish, and see the recipient responded', async ({ page, browser }) => {
  test.setTimeout(240_000);
  const a = await createTestAccount();
  const who = { accountId: a.account.id, actorId: a.owner.id };
  const tag = await createTag({ ...who, name: 'VIP', color: 'blue' as never });
  await createContact({ ...who, input: { firstName: 'Tagged', email: `tagged-${a.account.id}@example.test`, tagIds: [tag.id] } });
  const made = await publishedSurvey({ ...who, channel: 'email', subType: 'nps', name: 'Quarterly NPS', types: ['text'], target: { tagIds: [tag.id] }, publish: false });
  await updateSurvey({ ...who, id: made.survey.id, patch: { design: { ...made.survey.design, sendFrom: 'support@example.test', subject: 'Hi {{NAME}}' } }, step: 'design' });
  await signIn(page, { domain: a.domain, email: a.owner.email, password: TEST_PASSWORD });

  await page.goto(url(`/surveys/edit/${made.survey.id}/email/target`, a.domain));
  await page.getByLabel('By CSV upload').check();
  await page.getByLabel('List name').fill('Spring customers');
  await page.getByLabel('CSV or Excel file').setInputFiles({ name: 'list.png', mimeType: 'image/png', buffer: Buffer.from('\x89PNG\r\n\x1a\n0000') });
  await page.getByRole('button', { name: 'Upload list' }).click();
  await expect(page.getByTestId('csv-error')).toHaveText('Only csv or excel files can be uploaded.');
  await expect(page.getByLabel('List name')).toHaveValue('Spring customers');
  await page.getByRole('button', { name: 'Upload list' }).click();
  await expect(page.getByTestId('csv-error')).toHaveText('please select a csv file');
  const ada = `ada-${a.account.id}@example.test`;
  await page.getByLabel('CSV or Excel file').setInputFiles({ name: 'list.csv', mimeType: 'text/csv', buffer: Buffer.from(`email,first name\n${ada},Ada\nnot-an-address,Bo\n`) });
  await page.getByRole('button', { name: 'Upload list' }).click();
  // The mapping screen (columns mapped like the contact import): the guesses are right, the file's rows are shown.
  await expect(page.getByRole('heading', { name: 'Map the columns' })).toBeVisible();
  await expect(page.getByTestId('mapping')).toContainText(ada);
  await expect(page.getByLabel('email', { exact: true })).toHaveValue('email');
  await page.getByRole('button', { name: 'Add the recipients' }).click();
  await expect(page.getByText('CSV file successfully uploaded: 1 added, 1 failed')).toBeVisible();
  await expect(page.getByLabel('Recipient list')).toContainText('Spring customers (1 addresses, 1 failed)');

  // Settings: schedule it at the next whole minute (at least 40 s away) in Reykjavik time (UTC, no DST).
  await page.goto(url(`/surveys/edit/${made.survey.id}/email/settings`, a.domain));
  const at = new Date(Math.ceil((Date.now() + 40_000) / 60_000) * 60_000);
  await page.getByLabel('Schedule later (otherwise it is sent when published)').check();
  await page.getByTestId('primary').click();
  await expect(page.getByText('please select date')).toBeVisible();
  await page.getByLabel('Date', { exact: true }).fill(at.toISOString().slice(0, 10));
  await page.getByLabel('Time', { exact: true }).fill(at.toISOString().slice(11, 16));
  await page.getByLabel('Time zone').selectOption('Atlantic/Reykjavik');
  await page.getByTestId('primary').click();
  await expect(page.getByText('Survey Published Successfully')).toBeVisible();

  // The engine sends it at its time; the delivered email carries the first question's scores.
  const mail = await latestMail(ada, { subject: /Hi Ada/, timeoutMs: 150_000 });
  expect(Date.now()).toBeGreaterThanOrEqual(at.getTime());
  const link = /href="([^"]+\?a=9)"/.exec(mail.html ?? '')![1].replace(/&amp;/g, '&');
  const respondent = await browser.newContext({ javaScriptEnabled: false });
  const r = await respondent.newPage();
  await r.goto(link.replace(/^https?:\/\/[^/]+/, url('', a.domain)));
  await expect(r.getByRole('group', { name: /recommend us/ }).getByRole('radio', { name: '9' })).toBeChecked();
  await r.getByRole('textbox', { name: /anything else/ }).fill('Lovely');
  await r.getByRole('button', { name: 'Submit Survey' }).click();
  await expect(r.getByTestId('survey-done')).toBeVisible();
  await respondent.close();

  await page.goto(url(`/surveys/${made.survey.id}/results`, a.domain));
  await expect(page.getByTestId('recipient-row').filter({ hasText: ada })).toContainText('Responded');
  await expect(page.getByTestId('response-rate')).toHaveText('100%');
});

test('configure the email CSAT survey, resolve a conversation, rate it low from the email, comment, and see the rating on the conversation', async ({ page, browser }) => {
  test.setTimeout(120_000);
  const a = await createTestAccount();
  const who = { accountId: a.account.id, actorId: a.owner.id };
  const inbox = await createInbox({ ...who, name: 'Support mail', channelType: 'email' });
  await getDb().update(schema.inboxes).set({ email: `support@${a.domain}.example.test`, forwardingVerifiedAt: new Date() }).where(eq(schema.inboxes.id, inbox.id));
  await signIn(page, { domain: a.domain, email: a.owner.email, password: TEST_PASSWORD });
  await page.goto(url('/settings/email-survey/new', a.domain));
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('Please select at least one inbox')).toBeVisible();
  await expect(page.getByText('Subject is required')).toBeVisible();
  await page.getByLabel('Support mail').check();
  await page.getByLabel('Subject').fill('How did we do?');
  await page.getByLabel('Ask for a comment', { exact: true }).check();
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByTestId('csat-surveys')).toContainText('How did we do?');

  const customer = `cleo-${a.account.id}@example.test`;
  const opened = await getDb().transaction((tx) =>
    openConversation({ tx, accountId: a.account.id, inboxId: inbox.id, sourceType: 'email', subject: 'Order late', contact: { email: customer }, message: { kind: 'incoming', text: 'Where is it?' } } as never),
  );
  await setConversationStatus({ ...who, ids: [opened.conversation.id], status: 'resolved' });
  const mail = await latestMail(customer, { subject: /How did we do/, timeoutMs: 60_000 });
  const link = /href="([^"]+\?r=2)"/.exec(mail.html ?? '')![1].replace(/&amp;/g, '&');
  const customerPage = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
  await customerPage.goto(link.replace(/^https?:\/\/[^/]+/, url('', a.domain)));
  await customerPage.getByLabel('Can you tell us more about your experience?').fill('It took a week');
  await customerPage.getByRole('button', { name: 'Send' }).click();
  await expect(customerPage.getByText('Thank you for your valuable feedback')).toBeVisible();

  await page.goto(url(`/inbox/${opened.conversation.id}`, a.domain));
  await expect(page.getByTestId('csat-rating')).toContainText('2 / 5');
  await expect(page.getByTestId('csat-rating')).toContainText('It took a week');
});

test('the chat survey: configured in Settings, asked on the no-JavaScript chat page when the chat is resolved, rated there', async ({ page, browser }) => {
  test.setTimeout(120_000);
  const a = await createTestAccount();
  const who = { accountId: a.account.id, actorId: a.owner.id };
  const web = await createWebInbox({ ...who, name: 'Website chat' });
  await saveMessengerSection({ ...who, inboxId: web.id, section: 'chatPage', value: { enabled: true, heading: 'Talk to us', subHeading: '' } });
  const [inbox] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.id, web.id));
  const code = (inbox.settings as { chatPage: { code: string } }).chatPage.code;
  await signIn(page, { domain: a.domain, email: a.owner.email, password: TEST_PASSWORD });
  await page.goto(url('/settings/chat-survey/new', a.domain));
  await page.getByLabel('Website chat').check();
  await page.getByLabel('Subject').fill('How was this chat?');
  await page.getByLabel('Rating type').selectOption('emoji');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByTestId('csat-surveys')).toContainText('How was this chat?');

  const visitor = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
  await visitor.goto(url(`/public/chat/${code}`, a.domain));
  await visitor.getByLabel('Name').fill('Vic');
  await visitor.getByLabel('Email').fill(`vic-${a.account.id}@example.test`);
  await visitor.getByLabel('Message').fill('Do you ship to Norway?');
  await visitor.getByRole('button', { name: 'Send' }).click();
  await expect(visitor.getByTestId('chat-thread')).toContainText('Do you ship to Norway?');
  const [conv] = await getDb().select().from(schema.conversations).where(eq(schema.conversations.inboxId, web.id));
  await setConversationStatus({ ...who, ids: [conv.id], status: 'resolved' });
  await expect(async () => {
    await visitor.reload();
    await expect(visitor.getByTestId('chat-thread')).toContainText('How was this chat?', { timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  const text = await visitor.getByTestId('chat-thread').innerText();
  const link = /\/csat\/\d+\/[0-9a-f]{48}/.exec(text)![0];
  await visitor.goto(url(link, a.domain));
  await visitor.getByRole('button', { name: 'Happy', exact: true }).click();
  await expect(visitor.getByTestId('csat-done')).toContainText('Thank you for your valuable feedback');
  await page.goto(url(`/inbox/${conv.id}`, a.domain));
  await expect(page.getByTestId('csat-rating')).toContainText('4 / 5');
});
