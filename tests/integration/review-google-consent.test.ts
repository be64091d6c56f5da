import http from 'node:http';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createSource, importSourceReviews, openSourceConfig, replyToReview } from '../../app/models/reviews/reviews.server';
import { canPostReply, replyNotPostedReason } from '../../app/models/reviews/constants';
import { resetSingleton } from '../../app/utils/singleton.server';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { startFacebookRatings, startGoogleReviews } from '../helpers/review-apis';

/** Google Business Profile's consent flow (ADR 096) over HTTP, and Facebook replies as comments on the rating's story. */
const oauth = { clientId: 'parley-consent.apps.googleusercontent.com', clientSecret: 'consent-secret', refreshToken: '1//consented-refresh' };
const location = 'accounts/222/locations/444';
const noApi = { reviewUrl: null, locationName: null, businessUnitId: null, apiKey: null, accessToken: null, refreshToken: null };
let google: Awaited<ReturnType<typeof startGoogleReviews>>;
let app: Awaited<ReturnType<typeof startTestApp>>;

beforeAll(async () => {
  google = await startGoogleReviews({ location, token: 'ya29.never-given', oauth, reviews: [{ id: 'c1', name: 'Cora', rating: 4, comment: 'Good' }] });
  process.env.GOOGLE_CLIENT_ID = oauth.clientId;
  process.env.GOOGLE_CLIENT_SECRET = oauth.clientSecret;
  process.env.GOOGLE_OAUTH_BASE = google.url;
  process.env.GOOGLE_ACCOUNTS_BASE = google.url;
  process.env.PARLEY_ALLOW_PRIVATE_DESTINATIONS = 'true';
  resetSingleton('config');
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
  await google.close();
  for (const k of ['GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET', 'GOOGLE_OAUTH_BASE', 'GOOGLE_ACCOUNTS_BASE', 'PARLEY_ALLOW_PRIVATE_DESTINATIONS'])
    delete process.env[k];
  resetSingleton('config');
});

/** What a browser does with the consent page's 302: follows it to the stand-in, which redirects back with a code. */
function follow(location: string) {
  return new Promise<string>((resolve, reject) => http.get(location, (res) => (res.resume(), resolve(res.headers.location ?? ''))).on('error', reject));
}

/** An account with a saved Google source, its admin signed in, pressing Connect with Google. */
async function startConnect(domain: string) {
  const a = await createTestAccount({ domain });
  const cookie = await sessionCookie({ domain, accountId: a.account.id, userId: a.owner.id });
  const source = await createSource({
    accountId: a.account.id,
    actorId: a.owner.id,
    input: { kind: 'google', name: 'Google', ...noApi, locationName: location },
    apiBase: google.url,
  });
  const start = await app.request('/settings/sources', { domain, cookie, form: { intent: 'google-connect', id: String(source.id) } });
  return { a, cookie, source, start };
}

describe('Google Business Profile consent flow', () => {
  it('connects a source through the consent page, keeps the tokens sealed, imports with them, and disconnects with a revoke', async () => {
    const { a, cookie, source, start } = await startConnect('gconsent');
    expect(start.status).toBe(302);
    const consent = new URL(start.headers.location!);
    expect(consent.origin + consent.pathname).toBe(`${google.url}/o/oauth2/v2/auth`);
    expect(consent.searchParams.get('access_type')).toBe('offline');
    expect(consent.searchParams.get('scope')).toContain('https://www.googleapis.com/auth/business.manage');
    const back = new URL(await follow(consent.toString()));
    expect(back.pathname).toBe('/settings/sources/google');

    // The state is bound to the account and user: another account's admin cannot complete it, nor can a forged one.
    const b = await createTestAccount({ domain: 'gconsentb' });
    const other = await sessionCookie({ domain: 'gconsentb', accountId: b.account.id, userId: b.owner.id });
    expect((await app.request(back.pathname + back.search, { domain: 'gconsentb', cookie: other })).status).toBe(400);
    const forged = new URL(back);
    forged.searchParams.set('state', `${a.account.id}.${a.owner.id}.${source.id}.${Date.now()}.x.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`);
    const refused = await app.request(forged.pathname + forged.search, { domain: 'gconsent', cookie });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('expired or was not started here');

    const done = await app.request(back.pathname + back.search, { domain: 'gconsent', cookie });
    expect(done.status).toBe(302);
    expect(done.headers.location).toBe(`/settings/sources?source=${source.id}`);
    const [row] = await getDb().select().from(schema.reviewSources).where(eq(schema.reviewSources.id, source.id));
    expect(JSON.stringify(row.config)).not.toContain(oauth.refreshToken);
    expect(row.config.refreshToken).toMatch(/^v1\./);
    expect(openSourceConfig(row)).toMatchObject({ refreshToken: oauth.refreshToken, googleAccount: 'owner@business.test' });
    const page = await app.request(`/settings/sources?source=${source.id}`, { domain: 'gconsent', cookie });
    expect(page.text).toMatch(/Connected to Google as (<!-- -->)?owner@business\.test/);
    expect(page.text).not.toContain(oauth.refreshToken);

    // The consented access token reads the reviews at once (no refresh needed).
    expect(await importSourceReviews({ accountId: a.account.id, sourceId: source.id })).toEqual({ imported: 1 });
    expect(google.refreshes()).toBe(0);
    // The code was spent: replaying the callback is refused by Google and said.
    const replay = await app.request(back.pathname + back.search, { domain: 'gconsent', cookie });
    expect(replay.status).toBe(302);

    const off = await app.request('/settings/sources', { domain: 'gconsent', cookie, form: { intent: 'google-disconnect', id: String(source.id) } });
    expect(off.status).toBe(302);
    expect(google.revoked()).toBe(1);
    const [after] = await getDb().select().from(schema.reviewSources).where(eq(schema.reviewSources.id, source.id));
    expect(after.config.refreshToken).toBeUndefined();
    expect(after.config.accessToken).toBeUndefined();
  });

  it('a consent denied at Google says so and stores nothing', async () => {
    const denying = await startGoogleReviews({ location, token: 'x', oauth: { ...oauth, deny: true }, reviews: [] });
    process.env.GOOGLE_ACCOUNTS_BASE = denying.url;
    resetSingleton('config');
    try {
      const { cookie, source, start } = await startConnect('gdeny');
      const back = new URL(await follow(start.headers.location!));
      const done = await app.request(back.pathname + back.search, { domain: 'gdeny', cookie });
      expect(done.status).toBe(302);
      const [row] = await getDb().select().from(schema.reviewSources).where(eq(schema.reviewSources.id, source.id));
      expect(row.config.refreshToken).toBeUndefined();
    } finally {
      process.env.GOOGLE_ACCOUNTS_BASE = google.url;
      resetSingleton('config');
      await denying.close();
    }
  });
});

describe('Facebook replies (Graph API comments on the rating story)', () => {
  it('posts the reply as the Page comment, and says plainly when a rating cannot be answered', async () => {
    const fb = await startFacebookRatings({ pageId: '1234', token: 'EAAPage', ratings: [{ id: 'f1', reviewer: 'Finn', type: 'negative', text: 'Slow' }] });
    try {
      const a = await createTestAccount();
      const source = await createSource({
        accountId: a.account.id,
        actorId: a.owner.id,
        input: { kind: 'facebook', name: 'Facebook', ...noApi, pageId: '1234', accessToken: 'EAAPage' },
        apiBase: fb.url,
      });
      expect(await importSourceReviews({ accountId: a.account.id, sourceId: source.id })).toEqual({ imported: 1 });
      const [review] = await getDb().select().from(schema.reviews).where(eq(schema.reviews.sourceId, source.id));
      const replied = await replyToReview({ accountId: a.account.id, actorId: a.owner.id, id: review.id, reply: 'Sorry Finn, we are on it.' });
      expect(replied?.replyError).toBeNull();
      expect(fb.comments).toEqual([{ storyId: 'story_f1', message: 'Sorry Finn, we are on it.' }]);
      // A rating that came without its story (id reviewer:time) cannot be commented on: the page says so.
      expect(canPostReply('facebook', 'u9:2026-11-22T08:00:00+0000')).toBe(false);
      expect(replyNotPostedReason('facebook', 'u9:2026-11-22T08:00:00+0000')).toContain('Facebook does not let Parley answer this rating');
      expect(replyNotPostedReason('facebook', 'story_f1')).toBeNull();
    } finally {
      await fb.close();
    }
  });
});
