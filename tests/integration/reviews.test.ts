import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createCaptcha } from '../../app/models/productivity/captcha.server';
import { createTag } from '../../app/models/productivity/tags.server';
import { createSource, importSourceReviews } from '../../app/models/reviews/reviews.server';
import { findReviewConversationId } from '../../app/models/reviews/review-conversations.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { createTestAccount } from '../factories';
import { drainEvents, lastEventId } from '../helpers/engine';
import { sessionCookie, startTestApp } from '../helpers/http';
import { startGoogleReviews, startTrustpilot } from '../helpers/review-apis';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

async function setup() {
  const a = await createTestAccount();
  const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  const page = await createSource({ accountId: a.account.id, actorId: a.owner.id, input: { kind: 'parley', name: 'Our page', reviewUrl: null, locationName: null, businessUnitId: null, apiKey: null, accessToken: null } });
  return { ...a, cookie, page };
}

async function answered(sourceId: number) {
  const c = await createCaptcha({ formId: -(2 ** 40) - sourceId, now: Date.now() - 5_000 });
  const [, x, y] = c.question.match(/What is (\d+) \+ (\d+)\?/)!;
  return { captchaToken: c.token, captchaAnswer: String(Number(x) + Number(y)) };
}

const reviewsOf = (accountId: number) => getDb().select().from(schema.reviews).where(eq(schema.reviews.accountId, accountId));

describe('the public review page', () => {
  it('stores a review with review_received in the same transaction, matches the contact, and a workflow tags it', async () => {
    const s = await setup();
    await createInbox({ accountId: s.account.id, actorId: s.owner.id, name: 'Team', channelType: 'internal' });
    const [vip] = [await createTag({ accountId: s.account.id, actorId: s.owner.id, name: 'Reviewer', color: 'blue' })];
    await getDb()
      .insert(schema.automationRules)
      .values({ accountId: s.account.id, kind: 'workflow', name: 'Tag reviewers', event: 'review_received', conditions: [], conditionOperator: 'and', filters: [], actions: [{ type: 'assign_tag', tagIds: [vip.id] }], sources: [], isActive: true });
    const p = `/r/${s.page.code}`;
    const page = await app.request(p, { domain: s.domain });
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('<script');
    expect(page.text).toContain('data-testid="captcha"');

    // Bad input: no rating, no name, a wrong captcha: 400, nothing stored, what was typed shown back.
    let res = await app.request(p, { domain: s.domain, form: { name: '', text: 'Lovely people', ...(await answered(s.page.id)) } });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Please choose a rating from 1 to 5');
    expect(res.text).toContain('Please tell us your name');
    expect(res.text).toContain('Lovely people');
    res = await app.request(p, { domain: s.domain, form: { rating: '9', name: 'Rae', ...(await answered(s.page.id)) } });
    expect(res.text).toContain('Please choose a rating from 1 to 5');
    res = await app.request(p, { domain: s.domain, form: { rating: '5', name: 'Rae', captchaToken: (await answered(s.page.id)).captchaToken, captchaAnswer: '77' } });
    expect(res.status).toBe(400);
    expect(await reviewsOf(s.account.id)).toHaveLength(0);

    const after = await lastEventId(s.account.id);
    res = await app.request(p, { domain: s.domain, form: { rating: '5', name: 'Rae Reviewer', email: 'Rae@Example.test', text: 'Fast and kind', ...(await answered(s.page.id)) } });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`${p}?sent=1`);
    const [review] = await reviewsOf(s.account.id);
    expect(review).toMatchObject({ rating: 5, reviewerName: 'Rae Reviewer', text: 'Fast and kind', reviewerEmail: 'rae@example.test' });
    expect(review.contactId).not.toBeNull();
    const events = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, s.account.id), eq(schema.domainEvents.type, 'review_received'))).orderBy(schema.domainEvents.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ subjectId: String(review.id), payload: { channel: 'parley', rating: 5, contactId: review.contactId } });
    await drainEvents(s.account.id, { after });
    // ADR 149: the workflow's tag lands on the review's conversation (the reviewer's), which the review page links to.
    const conversationId = await findReviewConversationId({ accountId: s.account.id, reviewId: review.id });
    const [conv] = await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, conversationId!));
    expect(conv.contactId).toBe(review.contactId);
    const tags = await getDb().select().from(schema.conversationTags).where(eq(schema.conversationTags.conversationId, conversationId!));
    expect(tags.map((t) => t.tagId)).toEqual([vip.id]);

    const list = await app.request('/reviews', { domain: s.domain, cookie: s.cookie });
    expect(list.status).toBe(200);
    expect(list.text).toContain('Rae Reviewer');
    const one = await app.request(`/reviews/${review.id}`, { domain: s.domain, cookie: s.cookie });
    expect(one.text).toContain('Fast and kind');
    expect(one.text).toContain('data-testid="review-contact"');
    expect(one.text).toMatch(new RegExp(`data-testid="review-conversation"[^>]*href="/inbox/${conversationId}"`));
    const inbox = await app.request(`/inbox/${conversationId}`, { domain: s.domain, cookie: s.cookie });
    expect(inbox.status).toBe(200);
    expect(inbox.text).toContain('★★★★★ 5 of 5 on Our page');
  });

  it('keeps one account’s reviews and sources from another, and refuses forged codes', async () => {
    const s = await setup();
    const other = await setup();
    expect((await app.request(`/r/${other.page.code}`, { domain: s.domain })).status).toBe(404);
    expect((await app.request('/r/forged-code', { domain: s.domain, form: { rating: '5', name: 'x' } })).status).toBe(404);
    await app.request(`/r/${other.page.code}`, { domain: other.domain, form: { rating: '4', name: 'Olly', ...(await answered(other.page.id)) } });
    const [theirs] = await reviewsOf(other.account.id);
    expect((await app.request(`/reviews/${theirs.id}`, { domain: s.domain, cookie: s.cookie })).status).toBe(404);
    expect((await app.request(`/reviews/${theirs.id}`, { domain: s.domain, cookie: s.cookie, form: { intent: 'reply', reply: 'Hijack' } })).status).toBe(404);
    expect((await app.request(`/reviews/${theirs.id}`, { domain: s.domain, cookie: s.cookie, form: { intent: 'feature' } })).status).toBe(404);
    const list = await app.request('/reviews', { domain: s.domain, cookie: s.cookie });
    expect(list.text).not.toContain('Olly');
    expect((await app.request('/settings/sources', { domain: s.domain, cookie: s.cookie, form: { intent: 'delete', id: String(other.page.id) } })).status).toBe(404);
    const [still] = await reviewsOf(other.account.id);
    expect(still.replyText).toBeNull();
    expect(still.isFeatured).toBe(false);
    // Testimonials show only the host account's featured reviews.
    await app.request(`/reviews/${theirs.id}`, { domain: other.domain, cookie: other.cookie, form: { intent: 'feature' } });
    expect((await app.request('/testimonials', { domain: other.domain })).text).toContain('Olly');
    expect((await app.request('/testimonials', { domain: s.domain })).text).not.toContain('Olly');
  });
});

describe('external sources', () => {
  it('imports Google Business Profile reviews through its API (paged, once each) and posts replies back', async () => {
    const s = await setup();
    const location = 'accounts/111/locations/222';
    const google = await startGoogleReviews({
      location,
      token: 'ya29.good',
      reviews: [
        { id: 'g1', name: 'Gail', rating: 5, comment: 'Brilliant support' },
        { id: 'g2', name: 'Gus', rating: 2, comment: 'Slow answer\n\n(Translated by Google)\nSlow answer' },
        { id: 'g3', name: 'Gina', rating: 4 },
      ],
    });
    try {
      const source = await createSource({
        accountId: s.account.id,
        actorId: s.owner.id,
        input: { kind: 'google', name: 'Google', reviewUrl: 'https://g.page/r/x/review', locationName: location, businessUnitId: null, apiKey: null, accessToken: 'ya29.good' },
        apiBase: google.url,
      });
      expect(await importSourceReviews({ accountId: s.account.id, sourceId: source.id })).toEqual({ imported: 3 });
      expect(google.requests.filter((r) => r.method === 'GET')).toHaveLength(2);
      expect(google.requests[0].auth).toBe('Bearer ya29.good');
      // Again: nothing new.
      expect(await importSourceReviews({ accountId: s.account.id, sourceId: source.id })).toEqual({ imported: 0 });
      const rows = await reviewsOf(s.account.id);
      expect(rows).toHaveLength(4 - 1);
      const gus = rows.find((r) => r.reviewerName === 'Gus')!;
      expect(gus).toMatchObject({ rating: 2, text: 'Slow answer', externalId: `${location}/reviews/g2` });
      const received = await getDb()
        .select()
        .from(schema.domainEvents)
        .where(and(eq(schema.domainEvents.accountId, s.account.id), eq(schema.domainEvents.type, 'review_received'))).orderBy(schema.domainEvents.id);
      expect(received).toHaveLength(3);

      const res = await app.request(`/reviews/${gus.id}`, { domain: s.domain, cookie: s.cookie, form: { intent: 'reply', reply: 'Sorry Gus, we are on it' } });
      expect(res.status).toBe(302);
      const put = google.requests.find((r) => r.method === 'PUT')!;
      expect(put.path).toBe(`/${location}/reviews/g2/reply`);
      expect(put.body).toEqual({ comment: 'Sorry Gus, we are on it' });
      expect(google.reviews[1].reviewReply?.comment).toBe('Sorry Gus, we are on it');
      const [after] = await getDb().select().from(schema.reviews).where(eq(schema.reviews.id, gus.id));
      expect(after).toMatchObject({ replyText: 'Sorry Gus, we are on it', replyError: null });

      // An empty reply is refused and changes nothing.
      const empty = await app.request(`/reviews/${gus.id}`, { domain: s.domain, cookie: s.cookie, form: { intent: 'reply', reply: '  ' } });
      expect(empty.status).toBe(400);
      expect(empty.text).toContain('Reply is required');

      // A revoked token: the import says why on the source, and nothing is half-written.
      await getDb().update(schema.reviewSources).set({ config: { ...source.config, accessToken: 'ya29.revoked' } }).where(eq(schema.reviewSources.id, source.id));
      const failed = await importSourceReviews({ accountId: s.account.id, sourceId: source.id });
      expect(failed).toMatchObject({ imported: 0, error: expect.stringContaining('401') });
      const settings = await app.request('/settings/sources', { domain: s.domain, cookie: s.cookie });
      expect(settings.text).toContain('Google Business Profile answered 401');
    } finally {
      await google.close();
    }
  });

  it('imports Trustpilot reviews and posts a reply with the bearer token', async () => {
    const s = await setup();
    const tp = await startTrustpilot({ businessUnitId: 'bu-1', apiKey: 'key-1', token: 'tok-1', reviews: [{ id: 't1', name: 'Tia', stars: 3, title: 'Okay', text: 'Could be faster' }] });
    try {
      const source = await createSource({
        accountId: s.account.id,
        actorId: s.owner.id,
        input: { kind: 'trustpilot', name: 'Trustpilot', reviewUrl: 'https://www.trustpilot.com/review/example.com', locationName: null, businessUnitId: 'bu-1', apiKey: 'key-1', accessToken: 'tok-1' },
        apiBase: tp.url,
      });
      expect(await importSourceReviews({ accountId: s.account.id, sourceId: source.id })).toEqual({ imported: 1 });
      const [tia] = await reviewsOf(s.account.id).then((rows) => rows.filter((r) => r.sourceId === source.id));
      expect(tia).toMatchObject({ rating: 3, text: 'Okay\n\nCould be faster', externalId: 't1' });
      await app.request(`/reviews/${tia.id}`, { domain: s.domain, cookie: s.cookie, form: { intent: 'reply', reply: 'Thanks Tia' } });
      const post = tp.requests.find((r) => r.method === 'POST')!;
      expect(post).toMatchObject({ path: '/private/reviews/t1/reply', auth: 'Bearer tok-1', body: { message: 'Thanks Tia' } });
    } finally {
      await tp.close();
    }
  });

  it('refuses a malformed source with field errors and stores nothing', async () => {
    const s = await setup();
    const res = await app.request('/settings/sources?source=new&kind=google', {
      domain: s.domain,
      cookie: s.cookie,
      form: { intent: 'save', kind: 'google', name: 'G', locationName: 'not a location', reviewUrl: 'http://insecure.example' },
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Location must look like accounts/{account}/locations/{location}');
    expect(res.text).toContain('Review URL must be a valid https:// address');
    const sources = await getDb().select().from(schema.reviewSources).where(eq(schema.reviewSources.accountId, s.account.id));
    expect(sources).toHaveLength(1);
  });
});
