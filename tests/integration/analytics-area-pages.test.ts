import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { processEventBatch } from '../../engine/events';
import { analyticsProjections } from '../../engine/handlers/analytics';
import { PAGE_REPORTS } from '../../app/models/analytics/page-reports.server';
import { findAnalyticsPage } from '../../app/models/analytics/pages';
import { rebuildAnalytics } from '../../app/models/analytics/projection.server';
import { recordSearchConversion } from '../../app/models/analytics/search-conversions.server';
import { parseRange } from '../../app/models/analytics/range.server';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { seedAreaHistory } from './analytics-area-history';
import { HISTORY_FROM, HISTORY_TO, seedHandMadeHistory } from './analytics-history';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

const query = `range=custom&from=${HISTORY_FROM}&to=${HISTORY_TO}`;
const AREA_PAGES = ['contacts', 'visitors', 'meetings', 'reviews', 'surveys', 'forms', 'articles', 'searches'] as const;

async function run(accountId: number, slug: string, extra = '') {
  const search = new URLSearchParams(`${query}${extra}`);
  const { range, errors } = parseRange({ search, tz: 'UTC', page: findAnalyticsPage(slug)! });
  expect(errors).toEqual([]);
  return PAGE_REPORTS[slug]({ accountId, range, search });
}
async function report(accountId: number, slug: string, extra = '') {
  const r = await run(accountId, slug, extra);
  return Object.fromEntries(r.headlines.map((h) => [h.label, h.value]));
}

async function snapshot(accountId: number) {
  const c = schema.analyticsCounters;
  return getDb().select().from(c).where(eq(c.accountId, accountId)).orderBy(asc(c.metric), asc(c.dim), asc(c.key), asc(c.hour));
}

describe('analytics: customers, reviews, surveys, forms and help-centre pages (ADR 102)', () => {
  it('give the figures computed by hand, from this account only, and the rebuild gives identical counters', async () => {
    const a = await createTestAccount({ domain: 'anaarea' });
    const h = await seedAreaHistory({ accountId: a.account.id, agentId: a.owner.id });
    const b = await createTestAccount({ domain: 'anaareaother' });
    const o = await seedAreaHistory({ accountId: b.account.id, agentId: b.owner.id });
    // Uneven batches, one delivered twice, the other account's events mixed in.
    const ids = h.eventIds;
    for (const batch of [ids.slice(0, 10), ids.slice(10, 30), ids.slice(10, 30), [...ids.slice(30), ...o.eventIds]]) {
      const out = await processEventBatch(
        batch.map((eventId) => ({ eventId })),
        [analyticsProjections],
      );
      expect(out.filter((x) => x instanceof Error)).toEqual([]);
    }
    for (const slug of AREA_PAGES) {
      const expected: Record<string, number> = { ...h.expected[slug] };
      if (slug === 'visitors') expected['Online now'] = 0;
      const got = await report(a.account.id, slug);
      expect(Object.keys(got)).toEqual(Object.keys(expected));
      for (const [label, value] of Object.entries(expected)) expect(got[label], `${slug}: ${label}`).toBeCloseTo(value, 6);
    }
    // Breakdowns, by hand.
    const contacts = await run(a.account.id, 'contacts');
    expect(contacts.charts[1].table.rows).toEqual([
      ['Added in the CRM', 2],
      ['Form', 1],
    ]);
    expect(contacts.tables[0].rows).toEqual([
      ['France', 2],
      ['Unknown', 1],
    ]);
    const visitors = await run(a.account.id, 'visitors');
    expect(visitors.charts[1].table.rows).toEqual([
      ['/', 2],
      ['/pricing', 1],
      ['/pricing/plans', 1],
    ]);
    expect(visitors.tables[0].rows).toEqual([
      ['(direct)', 1],
      ['news.ycombinator.com', 1],
      ['www.google.com', 1],
    ]);
    const meetings = await run(a.account.id, 'meetings');
    expect(meetings.tables[0].rows).toEqual([[`${a.owner.firstName} ${a.owner.lastName}`, 3, 1]]);
    const reviews = await run(a.account.id, 'reviews');
    expect(reviews.charts[1].table.rows).toEqual([
      ['Google', 2, 4, 1, 50],
      ['Trustpilot', 2, 4, 1, 50],
    ]);
    const searches = await run(a.account.id, 'searches');
    expect(searches.tables[0].rows).toEqual([['shipping', 1, 1]]);
    const articles = await run(a.account.id, 'articles');
    expect(articles.tables[0].rows.map((r) => r.slice(1, 3))).toEqual([[1, 0]]);

    // The live events of the two real conversations (written by openConversation, today) counted too, then the rebuild.
    const all = await getDb().select({ id: schema.domainEvents.id }).from(schema.domainEvents).where(eq(schema.domainEvents.accountId, a.account.id));
    await processEventBatch(
      all.map((e) => ({ eventId: e.id })),
      [analyticsProjections],
    );
    const live = await snapshot(a.account.id);
    await rebuildAnalytics({ accountId: a.account.id });
    expect(await snapshot(a.account.id)).toEqual(live);
  });

  it('ties a messenger search to the conversation its visitor starts within 30 minutes, once (ADR 120)', async () => {
    const a = await createTestAccount({ domain: 'anasearchconv' });
    const db = getDb();
    const search = (visitorId: string, searchId: number, minutesAgo: number) =>
      db.insert(schema.domainEvents).values({
        accountId: a.account.id,
        type: 'kb_searched',
        subjectType: 'kb_search',
        subjectId: String(searchId),
        payload: { searchId, knowledgeBaseId: 1, query: `q${searchId}`, resultCount: 1, visitorId },
        occurredAt: new Date(Date.now() - minutesAgo * 60_000),
      });
    await search('v-old', 1, 45);
    await search('v1', 2, 20);
    await search('v1', 3, 5);
    const convert = (visitorId: string) => db.transaction((tx) => recordSearchConversion(tx, { accountId: a.account.id, visitorId, conversationId: 9 }));
    expect(await convert('v-old')).toBeNull();
    expect((await convert('v1'))?.payload).toMatchObject({ searchId: 3, query: 'q3', conversationId: 9 });
    expect(await convert('v1')).toBeNull();
    expect(await convert('v2')).toBeNull();
  });

  it('filters the conversation pages by tag, with the tags a conversation had when each event happened', async () => {
    const a = await createTestAccount({ domain: 'anatag' });
    const h = await seedHandMadeHistory({ accountId: a.account.id, agentId: a.owner.id });
    // Conversation 4 met its first-response target (its timer ran at the due time).
    const [met] = await getDb()
      .insert(schema.domainEvents)
      .values({
        accountId: a.account.id,
        type: 'sla_met',
        subjectType: 'conversation',
        subjectId: '880004',
        payload: { target: 'response', policyId: 1, priority: 'high', inboxId: h.inboxB.id },
        occurredAt: new Date('2026-11-11T17:00:00Z'),
      })
      .returning({ id: schema.domainEvents.id });
    await processEventBatch(
      [...h.eventIds, met.id].map((eventId) => ({ eventId })),
      [analyticsProjections],
    );
    // One breach (conversation 3) and one target met (conversation 4): 50 % met.
    expect(await report(a.account.id, 'sla')).toMatchObject({ 'SLA breaches': 1, 'SLA targets met': 1, 'Met share': 50 });
    // Tag 7 was added to conversation 2 before its reply (30 minutes after it opened) and its resolution (2 hours).
    expect(await report(a.account.id, 'overview', '&filter=tag:7')).toMatchObject({
      Conversations: 1,
      Resolved: 1,
      Replies: 1,
      'Average first response time': 1800,
      'Average resolution time': 7200,
    });
    expect(await report(a.account.id, 'overview', '&filter=tag:8')).toMatchObject({ Conversations: 0, Resolved: 0 });
    // The inbox, channels and users pages break the tag's figures down (ADR 120): conversation 2 only, in Support (email).
    const rowOf = async (slug: string, filter: string) => (await run(a.account.id, slug, filter)).charts[0].table.rows;
    expect(await rowOf('inbox', '&filter=tag:7')).toEqual([['Support', 1, 1, 1, 1800, 7200, 0]]);
    expect(await rowOf('channels', '&filter=tag:7')).toEqual([['Email', 1, 1, 1, 1800, 7200, 0]]);
    expect((await rowOf('users', '&filter=tag:7')).map((r) => r.slice(1, 4))).toEqual([[1, 0, 1800]]);
    expect(await rowOf('inbox', '&filter=tag:8')).toEqual([]);
    // Without a filter, both inboxes.
    expect((await rowOf('inbox', '')).map((r) => r[0]).sort()).toEqual(['Support', 'Website']);
  });

  it('refuses each page and its CSV without the reports permission, and the CSV is the page’s by-day table', async () => {
    const a = await createTestAccount({ domain: 'anaareaperm' });
    const h = await seedAreaHistory({ accountId: a.account.id, agentId: a.owner.id });
    await processEventBatch(
      h.eventIds.map((eventId) => ({ eventId })),
      [analyticsProjections],
    );
    const [bareRole] = await getDb().insert(schema.roles).values({ accountId: a.account.id, name: 'Viewer', permissions: [] }).returning();
    const viewer = await createTestUser({ accountId: a.account.id, roleId: bareRole.id });
    const owner = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    const viewerCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: viewer.id });
    const get = (path: string, cookie: string) => app.request(path, { domain: a.domain, cookie });
    for (const slug of AREA_PAGES) {
      const ok = await get(`/analytics/${slug}?${query}`, owner);
      expect(ok.status, slug).toBe(200);
      expect(ok.text).toContain('<svg');
      expect(ok.text).not.toContain('data-testid="not-built"');
      expect((await get(`/analytics/${slug}?${query}`, viewerCookie)).status, slug).toBe(403);
      expect((await get(`/analytics/${slug}/csv?${query}`, viewerCookie)).status, slug).toBe(403);
    }

    const csv = (await get(`/analytics/forms/csv?${query}`, owner)).text;
    expect(csv.trim().split('\n')).toEqual(['Day,Views,Submissions,Conversion rate', '2026-11-10,4,1,25', '2026-11-11,1,1,100']);
    const surveysCsv = (await get(`/analytics/surveys/csv?${query}`, owner)).text;
    expect(surveysCsv.trim().split('\n')).toEqual(['Day,Responses,NPS,CSAT,Average CES', '2026-11-10,5,25,,', '2026-11-11,4,,50,3']);
  });
});
