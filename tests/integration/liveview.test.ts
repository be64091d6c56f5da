import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { listLiveVisitors, recordPageView } from '../../app/models/crm/page-views.server';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

async function signedIn() {
  const a = await createTestAccount();
  const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  return { ...a, cookie };
}

function pageViewed(accountId: number) {
  return getDb()
    .select()
    .from(schema.domainEvents)
    .where(and(eq(schema.domainEvents.accountId, accountId), eq(schema.domainEvents.type, 'page_viewed')))
    .orderBy(schema.domainEvents.id);
}

/** Moves a visitor's rows back in time, as if they had been seen that many seconds ago. */
async function age(accountId: number, visitorId: string, seconds: number) {
  await getDb().execute(
    sql`update page_views set started_at = started_at - make_interval(secs => ${seconds}), last_seen_at = last_seen_at - make_interval(secs => ${seconds})
        where account_id = ${accountId} and visitor_id = ${visitorId}`,
  );
}

describe('recordPageView', () => {
  it('starts a row (and one page_viewed event) per new page, and only touches it for the same page', async () => {
    const a = await signedIn();
    const [contact] = await getDb().insert(schema.contacts).values({ accountId: a.account.id, email: 'ada@example.test', firstName: 'Ada', lastName: 'Lovelace' }).returning();
    const first = await recordPageView({ accountId: a.account.id, visitorId: 'v1', url: 'https://shop.example/', title: 'Home', referrer: 'https://search.example/?q=x', userAgent: 'UA', country: 'UK' });
    expect(first.newPage).toBe(true);
    const ping = await recordPageView({ accountId: a.account.id, visitorId: 'v1', url: 'https://shop.example/', userAgent: 'UA' });
    expect(ping).toEqual({ id: first.id, newPage: false });
    expect(await pageViewed(a.account.id)).toHaveLength(1);
    const second = await recordPageView({ accountId: a.account.id, visitorId: 'v1', url: 'https://shop.example/pricing', title: 'Pricing', contactId: contact.id, userAgent: 'UA', country: 'UK' });
    expect(second.newPage).toBe(true);
    const events = await pageViewed(a.account.id);
    expect(events).toHaveLength(2);
    expect(events[1].payload).toMatchObject({ visitorId: 'v1', url: 'https://shop.example/pricing', contactId: contact.id });
    const [seen] = await getDb().select().from(schema.contacts).where(eq(schema.contacts.id, contact.id));
    expect(seen.lastSeenAt).not.toBeNull();
    expect(seen.lastInteractionAt).not.toBeNull();
  });

  it("ignores a contact id of another account", async () => {
    const a = await signedIn();
    const b = await signedIn();
    const [foreign] = await getDb().insert(schema.contacts).values({ accountId: b.account.id, email: 'b@example.test', firstName: 'Bee' }).returning();
    const view = await recordPageView({ accountId: a.account.id, visitorId: 'v', url: 'https://a.example/', contactId: foreign.id });
    const [row] = await getDb().select().from(schema.pageViews).where(eq(schema.pageViews.id, view.id));
    expect(row.contactId).toBeNull();
    const [untouched] = await getDb().select().from(schema.contacts).where(eq(schema.contacts.id, foreign.id));
    expect(untouched.lastSeenAt).toBeNull();
  });
});

describe('listLiveVisitors', () => {
  it('lists each visitor seen in the last 2 minutes once, with current page, first referrer, time on site and contact', async () => {
    const a = await signedIn();
    const [contact] = await getDb().insert(schema.contacts).values({ accountId: a.account.id, email: 'ada@example.test', firstName: 'Ada', lastName: 'Lovelace' }).returning();
    await recordPageView({ accountId: a.account.id, visitorId: 'ada', url: 'https://shop.example/', referrer: 'https://search.example/', country: 'UK', contactId: contact.id });
    await age(a.account.id, 'ada', 90);
    await recordPageView({ accountId: a.account.id, visitorId: 'ada', url: 'https://shop.example/cart', title: 'Cart', referrer: 'https://shop.example/', country: 'UK' });
    await recordPageView({ accountId: a.account.id, visitorId: 'anon', url: 'https://shop.example/blog' });
    await recordPageView({ accountId: a.account.id, visitorId: 'gone', url: 'https://shop.example/old' });
    await age(a.account.id, 'gone', 121);

    const visitors = await listLiveVisitors({ accountId: a.account.id });
    expect(visitors.map((v) => v.visitorId).sort()).toEqual(['ada', 'anon']);
    const ada = visitors.find((v) => v.visitorId === 'ada')!;
    expect(ada).toMatchObject({ url: 'https://shop.example/cart', title: 'Cart', referrer: 'https://search.example/', country: 'UK', contact: { id: contact.id, name: 'Ada Lovelace', email: 'ada@example.test' } });
    expect(ada.secondsOnSite).toBeGreaterThanOrEqual(89);
    expect(ada.secondsOnSite).toBeLessThan(120);
    expect(visitors.find((v) => v.visitorId === 'anon')!.contact).toBeNull();

    // A ping keeps a visitor in the window.
    await age(a.account.id, 'anon', 110);
    await recordPageView({ accountId: a.account.id, visitorId: 'anon', url: 'https://shop.example/blog' });
    await age(a.account.id, 'anon', 20);
    expect((await listLiveVisitors({ accountId: a.account.id })).map((v) => v.visitorId)).toContain('anon');
  });
});

describe('the live view page', () => {
  it("shows the account's own live visitors only", async () => {
    const a = await signedIn();
    const b = await signedIn();
    await recordPageView({ accountId: a.account.id, visitorId: 'visitor-a', url: 'https://a.example/landing', title: 'A landing page', country: 'Peru' });
    await recordPageView({ accountId: b.account.id, visitorId: 'visitor-b', url: 'https://b.example/secret', title: 'B secret page' });
    const page = await app.request('/customers/liveview', { domain: a.domain, cookie: a.cookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain('A landing page');
    expect(page.text).toContain('Peru');
    expect(page.text).not.toContain('B secret page');
    expect(page.text).toContain('1 visitor on your site');
    expect(page.text).toContain('Refresh');
    expect(page.text).not.toContain('http-equiv="refresh"');
  });

  it('is refused by the server on a plan without liveView', async () => {
    const a = await signedIn();
    const [starter] = await getDb().select().from(schema.plans).where(eq(schema.plans.key, 'starter'));
    await getDb().update(schema.accounts).set({ planId: starter.id }).where(eq(schema.accounts.id, a.account.id));
    const page = await app.request('/customers/liveview', { domain: a.domain, cookie: a.cookie });
    expect(page.status).toBe(403);
    expect(page.text).toContain('Your current plan does not support this feature.');
  });

  it('does not render a javascript: url as a link', async () => {
    const a = await signedIn();
    await recordPageView({ accountId: a.account.id, visitorId: 'x', url: 'javascript:alert(1)', title: 'Sneaky' });
    const page = await app.request('/customers/liveview', { domain: a.domain, cookie: a.cookie });
    expect(page.text).toContain('Sneaky');
    expect(page.text).not.toContain('href="javascript:');
  });
});
