import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createSource, importSourceReviews } from '../../app/models/reviews/reviews.server';
import { createTestAccount } from '../factories';
import { startFacebookRatings } from '../helpers/review-apis';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;
let facebook: Awaited<ReturnType<typeof startFacebookRatings>>;
beforeAll(async () => {
  process.env.PARLEY_ALLOW_PRIVATE_DESTINATIONS = 'true';
  app = await startTestApp();
  facebook = await startFacebookRatings({
    pageId: '1234567890',
    token: 'EAAB.page-token',
    ratings: [
      { id: 'f1', reviewer: 'Fay', type: 'positive', text: 'Lovely team' },
      { id: 'f2', reviewer: 'Finn', type: 'negative', text: 'Never answered' },
      { id: 'f3', reviewer: 'Flo', rating: 4 },
    ],
  });
});
afterAll(async () => {
  await facebook.close();
  await app.close();
  delete process.env.PARLEY_ALLOW_PRIVATE_DESTINATIONS;
});

describe('Facebook Page ratings (ADR 087)', () => {
  it('imports recommendations through the Graph API with cursor paging, writes review_received, refuses a bad Page id and names a bad token', async () => {
    const a = await createTestAccount();
    const other = await createTestAccount();
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    const refused = await app.request('/settings/sources?source=new&kind=facebook', { domain: a.domain, cookie, form: { intent: 'save', kind: 'facebook', name: 'Facebook', pageId: 'my-page' } });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Page id must be the numeric id of your Facebook Page');
    const input = { kind: 'facebook' as const, name: 'Facebook', reviewUrl: 'https://www.facebook.com/acme/reviews', locationName: null, businessUnitId: null, apiKey: null, pageId: '1234567890', accessToken: 'EAAB.page-token' };
    const source = await createSource({ accountId: a.account.id, actorId: a.owner.id, input, apiBase: facebook.url });
    expect(await importSourceReviews({ accountId: a.account.id, sourceId: source.id })).toEqual({ imported: 3 });
    expect(facebook.requests.filter((r) => r.method === 'GET')).toHaveLength(2);
    expect(facebook.requests[0].auth).toBe('Bearer EAAB.page-token');
    expect(await importSourceReviews({ accountId: a.account.id, sourceId: source.id })).toEqual({ imported: 0 });
    const rows = await getDb().select().from(schema.reviews).where(eq(schema.reviews.accountId, a.account.id)).orderBy(schema.reviews.id);
    expect(rows.map((r) => [r.reviewerName, r.rating, r.text, r.externalId])).toEqual([
      ['Fay', 5, 'Lovely team', 'story_f1'],
      ['Finn', 1, 'Never answered', 'story_f2'],
      ['Flo', 4, '', 'story_f3'],
    ]);
    const events = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, a.account.id), eq(schema.domainEvents.type, 'review_received')));
    expect(events).toHaveLength(3);
    expect(await getDb().select().from(schema.reviews).where(eq(schema.reviews.accountId, other.account.id))).toHaveLength(0);

    // A token Facebook refuses: the Graph error is the import's error, shown on the source.
    const bad = await createSource({ accountId: a.account.id, actorId: a.owner.id, input: { ...input, name: 'Old token', accessToken: 'EAAB.expired' }, apiBase: facebook.url });
    const failed = await importSourceReviews({ accountId: a.account.id, sourceId: bad.id });
    expect(failed).toMatchObject({ imported: 0, error: 'Facebook answered 400: Invalid OAuth access token - Cannot parse access token' });
    // A link-only Facebook source says why it cannot import.
    const link = await createSource({ accountId: a.account.id, actorId: a.owner.id, input: { ...input, name: 'Link only', pageId: null, accessToken: null } });
    expect(await importSourceReviews({ accountId: a.account.id, sourceId: link.id })).toMatchObject({ error: 'Facebook needs a Page id and a Page access token' });
  });
});
