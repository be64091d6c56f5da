import { expect, test, type Page } from '@playwright/test';
import { and, eq } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { createTag } from '../../../app/models/productivity/tags.server';
import { findReviewConversationId } from '../../../app/models/reviews/review-conversations.server';
import { createInbox } from '../../../app/models/inbox/inboxes.server';
import { createSource } from '../../../app/models/reviews/reviews.server';
import { createTestAccount } from '../../factories';
import { startGoogleReviews } from '../../helpers/review-apis';
import { signIn, url } from '../helpers';

/** Reviews with JavaScript off: the public page, a workflow on review_received, a Google import answered. */
test.use({ javaScriptEnabled: false });

const noApi = { reviewUrl: null, locationName: null, businessUnitId: null, apiKey: null, accessToken: null };

/**
 * Answers the page's question and sends. The captcha refuses a page answered within 3 s of loading (a person takes
 * longer), and every post counts against the page's 10-per-10-minutes limit: so the visitor takes those seconds, as
 * the contact form's test does, instead of posting again and again (a quick machine used up the limit that way).
 */
async function answerAndSend(page: Page, button: string) {
  const label = await page.locator('label[for="review-captcha"]').textContent();
  const [, x, y] = label!.match(/What is (\d+) \+ (\d+)\?/)!;
  await page.getByLabel(label!).fill(String(Number(x) + Number(y)));
  await page.waitForTimeout(3_100);
  await page.getByRole('button', { name: button }).click();
  await expect(page.getByTestId('review-thanks')).toBeVisible();
}

test('a review on the public page appears in /reviews with its contact, and a workflow on review_received tags the review’s conversation', async ({ page, browser }) => {
  const a = await createTestAccount();
  const who = { accountId: a.account.id, actorId: a.owner.id };
  await createInbox({ ...who, name: 'Team', channelType: 'internal' });
  const tag = await createTag({ ...who, name: 'Reviewer', color: 'green' });
  await getDb()
    .insert(schema.automationRules)
    .values({ accountId: a.account.id, kind: 'workflow', name: 'Tag reviewers', event: 'review_received', conditions: [], conditionOperator: 'and', filters: [], actions: [{ type: 'assign_tag', tagIds: [tag.id] }], sources: [], isActive: true });
  const source = await createSource({ ...who, input: { kind: 'parley', name: 'Our page', ...noApi } });

  const visitor = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
  await visitor.goto(url(`/r/${source.code}`, a.domain));
  await visitor.getByRole('button', { name: 'Send review' }).click();
  await expect(visitor.getByText('Please choose a rating from 1 to 5')).toBeVisible();
  await visitor.getByRole('radio', { name: /4 stars/ }).check();
  await visitor.getByLabel('Your review (optional)').fill('Helpful and quick');
  await visitor.getByLabel('Your name').fill('Rita Review');
  await visitor.getByLabel('Email (optional, never shown)').fill('rita@example.test');
  await answerAndSend(visitor, 'Send review');

  await signIn(page, a);
  await page.goto(url('/reviews', a.domain));
  await expect(page.getByTestId('reviews-table')).toContainText('Rita Review');
  await page.getByRole('link', { name: /Rita Review/ }).click();
  await expect(page.getByTestId('review-text')).toHaveText('Helpful and quick');
  await expect(page.getByTestId('review-contact')).toBeVisible();
  // The engine (inline in this server) ran the workflow on review_received: the review's conversation (ADR 149), tagged.
  const [review] = await getDb().select().from(schema.reviews).where(eq(schema.reviews.accountId, a.account.id));
  await expect.poll(() => findReviewConversationId({ accountId: a.account.id, reviewId: review.id }), { timeout: 30_000 }).not.toBeNull();
  const conversationId = (await findReviewConversationId({ accountId: a.account.id, reviewId: review.id }))!;
  expect((await getDb().select().from(schema.conversationTags).where(eq(schema.conversationTags.conversationId, conversationId))).map((t) => t.tagId)).toEqual([tag.id]);
  const [contact] = await getDb().select().from(schema.contacts).where(and(eq(schema.contacts.accountId, a.account.id), eq(schema.contacts.email, 'rita@example.test')));
  expect((await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, conversationId)))[0].contactId).toBe(contact.id);
  await page.reload();
  await page.getByTestId('review-conversation').click();
  await expect(page).toHaveURL(url(`/inbox/${conversationId}`, a.domain));
  await expect(page.getByText('Helpful and quick').first()).toBeVisible();
});

test('a review imported from the Google stand-in is answered, and the reply is posted back to Google', async ({ page }) => {
  const a = await createTestAccount();
  const location = 'accounts/7/locations/9';
  const google = await startGoogleReviews({ location, token: 'tok', reviews: [{ id: 'r1', name: 'Gwen Google', rating: 2, comment: 'Took a week to answer' }] });
  try {
    await createSource({ accountId: a.account.id, actorId: a.owner.id, input: { kind: 'google', name: 'Google', ...noApi, locationName: location, accessToken: 'tok' }, apiBase: google.url });
    await signIn(page, a);
    await page.goto(url('/settings/sources', a.domain));
    // The engine reads a new source at once; Import now reads it again (nothing new the second time).
    await page.getByTestId('import-now').click();
    await expect(page.getByText(/new reviews? imported/)).toBeVisible();
    await expect(page.getByTestId('source-Google')).toContainText('1 · 2.0★');
    await page.goto(url('/reviews?replied=no', a.domain));
    await page.getByRole('link', { name: /Gwen Google/ }).click();
    await page.getByLabel(/Reply \(posted publicly on Google\)/).fill('Sorry Gwen, we have added staff.');
    await page.getByRole('button', { name: 'Send reply' }).click();
    await expect(page.getByText('Reply Sent')).toBeVisible();
    await expect(page.getByTestId('reply-status')).toContainText('posted to Google');
    expect(google.reviews[0].reviewReply?.comment).toBe('Sorry Gwen, we have added staff.');
  } finally {
    await google.close();
  }
});
