import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createSource, importSourceReviews, openSourceConfig, replyToReview } from '../../app/models/reviews/reviews.server';
import { resetSingleton } from '../../app/utils/singleton.server';
import { createTestAccount } from '../factories';
import { startGoogleReviews } from '../helpers/review-apis';

const oauth = { clientId: 'parley-test.apps.googleusercontent.com', clientSecret: 'test-secret', refreshToken: '1//refresh-me' };
const location = 'accounts/111/locations/333';
let google: Awaited<ReturnType<typeof startGoogleReviews>>;

beforeAll(async () => {
  google = await startGoogleReviews({ location, token: 'ya29.never-given', oauth: { ...oauth, expiresIn: 200 }, reviews: [{ id: 'g1', name: 'Gail', rating: 5, comment: 'Great' }] });
  process.env.GOOGLE_CLIENT_ID = oauth.clientId;
  process.env.GOOGLE_CLIENT_SECRET = oauth.clientSecret;
  process.env.GOOGLE_OAUTH_BASE = google.url;
  process.env.PARLEY_ALLOW_PRIVATE_DESTINATIONS = 'true';
  resetSingleton('config');
});
afterAll(async () => {
  await google.close();
  for (const k of ['GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET', 'GOOGLE_OAUTH_BASE', 'PARLEY_ALLOW_PRIVATE_DESTINATIONS']) delete process.env[k];
  resetSingleton('config');
});

describe('Google Business Profile refresh tokens (ADR 086)', () => {
  it('renews the access token when missing or about to expire, keeps it on the source, renews on a 401, and names a revoked refresh token', async () => {
    const a = await createTestAccount();
    const source = await createSource({
      accountId: a.account.id,
      actorId: a.owner.id,
      input: { kind: 'google', name: 'Google', reviewUrl: null, locationName: location, businessUnitId: null, apiKey: null, accessToken: null, refreshToken: oauth.refreshToken },
      apiBase: google.url,
    });
    // No access token yet: one is fetched with the refresh token first.
    expect(await importSourceReviews({ accountId: a.account.id, sourceId: source.id })).toEqual({ imported: 1 });
    expect(google.refreshes()).toBe(1);
    const rowOf = async () => (await getDb().select().from(schema.reviewSources).where(eq(schema.reviewSources.id, source.id)))[0];
    // Stored sealed (ADR 096): the column holds no token in the clear.
    expect(JSON.stringify((await rowOf()).config)).not.toContain(oauth.refreshToken);
    expect(JSON.stringify((await rowOf()).config)).not.toContain('ya29.refreshed-1');
    const configOf = async () => openSourceConfig(await rowOf());
    const first = await configOf();
    expect(first).toMatchObject({ accessToken: 'ya29.refreshed-1', refreshToken: oauth.refreshToken });
    // Valid for 200 s: less than the five-minute margin, so the next read renews before it starts.
    expect(await importSourceReviews({ accountId: a.account.id, sourceId: source.id })).toEqual({ imported: 0 });
    expect(google.refreshes()).toBe(2);
    // A token far from expiry is used as it is; one Google refuses (401) is renewed once and the call retried.
    await getDb()
      .update(schema.reviewSources)
      .set({ config: { ...first, accessToken: 'ya29.revoked-by-google', accessTokenExpiresAt: new Date(Date.now() + 3600_000).toISOString() } })
      .where(eq(schema.reviewSources.id, source.id));
    const [review] = await getDb().select().from(schema.reviews).where(eq(schema.reviews.sourceId, source.id));
    const replied = await replyToReview({ accountId: a.account.id, actorId: a.owner.id, id: review.id, reply: 'Thank you Gail' });
    expect(replied?.replyError).toBeNull();
    expect(google.refreshes()).toBe(3);
    expect(google.reviews[0].reviewReply?.comment).toBe('Thank you Gail');
    expect((await configOf()).accessToken).toBe('ya29.refreshed-3');
    // A refresh token Google no longer accepts: the import's error says so.
    await getDb()
      .update(schema.reviewSources)
      .set({ config: { ...(await configOf()), accessToken: undefined, refreshToken: '1//revoked' } })
      .where(eq(schema.reviewSources.id, source.id));
    const failed = await importSourceReviews({ accountId: a.account.id, sourceId: source.id });
    expect(failed).toMatchObject({ imported: 0, error: expect.stringContaining('Renewing the Google access token failed') });
    expect(failed).toMatchObject({ error: expect.stringContaining('Token has been expired or revoked') });
  });
});
