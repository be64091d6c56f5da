import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { processEventBatch } from '../../engine/events';
import { analyticsProjections } from '../../engine/handlers/analytics';
import { PAGE_REPORTS } from '../../app/models/analytics/page-reports.server';
import { findAnalyticsPage } from '../../app/models/analytics/pages';
import { parseRange } from '../../app/models/analytics/range.server';
import { binEstimate } from '../../app/models/analytics/reports.server';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { HISTORY_FROM, HISTORY_TO, seedHandMadeHistory } from './analytics-history';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

const query = `range=custom&from=${HISTORY_FROM}&to=${HISTORY_TO}`;

async function report(accountId: number, slug: string, extra = '') {
  const search = new URLSearchParams(`${query}${extra}`);
  const { range, errors } = parseRange({ search, tz: 'UTC', page: findAnalyticsPage(slug)! });
  expect(errors).toEqual([]);
  const r = await PAGE_REPORTS[slug]({ accountId, range, search });
  return Object.fromEntries(r.headlines.map((h) => [h.label, h.value]));
}

/** The bin midpoint the histograms give for a duration (ADR 090): what a person computes from the formula. */
const estimate = (seconds: number) => binEstimate(Math.floor(4 * Math.log2(1 + seconds)));

describe('analytics pages', () => {
  it('give the figures computed by hand, from this account only', async () => {
    const a = await createTestAccount({ domain: 'anapages' });
    const h = await seedHandMadeHistory({ accountId: a.account.id, agentId: a.owner.id });
    const b = await createTestAccount({ domain: 'anapagesother' });
    const o = await seedHandMadeHistory({ accountId: b.account.id, agentId: b.owner.id });
    await processEventBatch([...h.eventIds, ...o.eventIds].map((eventId) => ({ eventId })), [analyticsProjections]);
    const e = h.expected;

    expect(await report(a.account.id, 'overview')).toEqual({
      Conversations: e.conversations,
      Resolved: e.resolved,
      Replies: e.replies,
      'Average first response time': e.firstResponseSeconds / e.firstResponses,
      'Average resolution time': e.resolutionSeconds / e.resolved,
      CSAT: e.csatSatisfiedPercent,
      // No business hours on these inboxes: business time is calendar time (ADR 120).
      'Average first response time (business hours)': e.firstResponseSeconds / e.firstResponses,
      'Average resolution time (business hours)': e.resolutionSeconds / e.resolved,
    });
    // Inbox A (Support) only: conversations 1 and 2.
    expect(await report(a.account.id, 'overview', `&filter=inbox:${h.inboxA.id}`)).toMatchObject({ Conversations: 2, Resolved: 2, 'Average first response time': (600 + 1800) / 2 });
    expect(await report(a.account.id, 'inbox')).toEqual({ Conversations: 4, Resolved: 3, 'Average first response time': 900, 'Average resolution time': 4200 });
    expect(await report(a.account.id, 'channels')).toEqual({ Conversations: 4, Resolved: 3, 'Average first response time': 900, 'Average resolution time': 4200 });
    // Medians by the nearest rank: first responses 300, 600, 1800 → 600; resolutions 1800, 3600, 7200 → 3600; p90 the largest.
    expect(await report(a.account.id, 'metrics')).toEqual({
      'Median first response time': estimate(600),
      '90th percentile first response time': estimate(1800),
      'Median resolution time': estimate(3600),
      '90th percentile resolution time': estimate(7200),
      'Median first response time (business hours)': estimate(600),
    });
    expect(await report(a.account.id, 'sla')).toEqual({ 'SLA breaches': 1, 'Breaches per 100 conversations': 25, Resolved: 3, 'SLA targets met': 0, 'Met share': 0 });
    expect(await report(a.account.id, 'customer-satisfaction')).toEqual({ Ratings: 2, 'Average rating': 3.5, CSAT: 50 });
    // Replies by the owner (all four), resolutions of the owner's assigned conversation: only conversation 1.
    expect(await report(a.account.id, 'users')).toEqual({ Replies: 4, Resolved: 3, 'Average first response time': 900, CSAT: 50 });
    expect(await report(a.account.id, 'workflows')).toEqual({ Runs: 0, Matched: 0, 'Actions applied': 0, 'Actions failed': 0 });

    const staffing = await report(a.account.id, 'staffing-prediction');
    expect(staffing['Agents scheduled']).toBe(1);

    // The other account has the same history: had it leaked in, every count above would be doubled.
    const users = PAGE_REPORTS.users;
    const search = new URLSearchParams(query);
    const { range } = parseRange({ search, tz: 'UTC', page: findAnalyticsPage('users')! });
    const perAgent = (await users({ accountId: a.account.id, range, search })).charts[0].table.rows;
    expect(perAgent).toHaveLength(1);
    expect(perAgent[0].slice(1, 3)).toEqual([4, 1]);
  });

  it('locks a page without its reports permission, with a 403 from the server, and exports the table as CSV', async () => {
    const a = await createTestAccount({ domain: 'anaperm' });
    const h = await seedHandMadeHistory({ accountId: a.account.id, agentId: a.owner.id });
    await processEventBatch(h.eventIds.map((eventId) => ({ eventId })), [analyticsProjections]);
    const [bareRole] = await getDb().insert(schema.roles).values({ accountId: a.account.id, name: 'Viewer', permissions: [] }).returning();
    const viewer = await createTestUser({ accountId: a.account.id, roleId: bareRole.id });
    const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
    const owner = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    const viewerCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: viewer.id });
    const agentCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: agent.id });
    const get = (path: string, cookie: string) => app.request(path, { domain: a.domain, cookie });

    const ok = await get(`/analytics/overview?${query}`, owner);
    expect(ok.status).toBe(200);
    const html = ok.text;
    expect(html).toContain('Conversations and resolutions');
    expect(html).toContain('<svg');

    const denied = await get(`/analytics/overview?${query}`, viewerCookie);
    expect(denied.status).toBe(403);
    expect(denied.text).toContain('role-denied');
    expect((await get(`/analytics/overview/csv?${query}`, viewerCookie)).status).toBe(403);
    // An agent has conversation_reports but not performance_reports: users is locked in the menu and refused.
    const agentPage = (await get(`/analytics/overview?${query}`, agentCookie)).text;
    expect(agentPage).toMatch(/data-testid="menu-users"[^>]*>.*?data-denied="role"/s);
    expect((await get(`/analytics/users?${query}`, agentCookie)).status).toBe(403);

    const csv = (await get(`/analytics/overview/csv?${query}`, owner)).text;
    expect(csv.trim().split('\n')).toEqual([
      'Day,Conversations,Resolved,Replies,Average first response time,Average resolution time,CSAT',
      '2026-11-10,2,2,3,1200,5400,50',
      '2026-11-11,2,1,1,300,1800,',
    ]);
    expect((await get(`/analytics/overview?range=custom&from=2026-11-12&to=2026-11-01`, owner)).status).toBe(400);
    expect((await get('/analytics/goals', owner)).status).toBe(200);
  });
});
