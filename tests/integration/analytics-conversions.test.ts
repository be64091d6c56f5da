import http from 'node:http';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { processEventBatch } from '../../engine/events';
import { analyticsProjections } from '../../engine/handlers/analytics';
import { urlGoals } from '../../engine/handlers/url-goals';
import { PAGE_REPORTS } from '../../app/models/analytics/page-reports.server';
import { findAnalyticsPage } from '../../app/models/analytics/pages';
import { rebuildAnalytics } from '../../app/models/analytics/projection.server';
import { parseRange } from '../../app/models/analytics/range.server';
import { createWebInbox } from '../../app/models/channels/messenger-settings.server';
import { createGoal, createSaleTracker, recordSale } from '../../app/models/conversions/conversions.server';
import { postMessage } from '../../app/models/inbox/conversations.server';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { HISTORY_FROM, HISTORY_TO, seedHandMadeHistory } from './analytics-history';

/**
 * The campaign and Ecommerce report pages (ADR 104) against figures computed by hand, another account's rows never
 * counted, the reports permission enforced on page and CSV, Settings → Conversions without JavaScript, and the
 * messenger's track('sale') end to end (ADR 105).
 */
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
  return PAGE_REPORTS[slug]({ accountId, range, search });
}
const heads = async (accountId: number, slug: string, extra = '') =>
  Object.fromEntries((await report(accountId, slug, extra)).headlines.map((h) => [h.label, h.value]));

const at = (s: string) => new Date(`2026-11-${s}:00Z`);

/** Campaigns of each kind with recipients whose steps fall on 10 and 11 November (and one on the 9th, the previous period). */
async function seedCampaigns(accountId: number) {
  const db = getDb();
  const campaign = async (kind: 'message' | 'email' | 'sms' | 'push', name: string) =>
    (await db.insert(schema.campaigns).values({ accountId, kind, name, status: 'sent' }).returning())[0];
  const chat = await campaign('message', 'Welcome offer');
  const email = await campaign('email', 'November news');
  const sms = await campaign('sms', 'Flash sale');
  type R = Partial<typeof schema.campaignRecipients.$inferInsert>;
  const rows = (campaignId: number, list: R[]) =>
    db
      .insert(schema.campaignRecipients)
      .values(list.map((r, i) => ({ accountId, campaignId, address: `r${i}-${campaignId}@x.test`, status: 'sent' as const, ...r })));
  await rows(chat.id, [
    { sentAt: at('10T09:00'), repliedAt: at('10T09:05') },
    { sentAt: at('10T10:00') },
    { sentAt: at('11T12:00'), repliedAt: at('11T12:30') },
    { sentAt: at('09T10:00') },
  ]);
  await rows(email.id, [
    { sentAt: at('10T08:00'), openedAt: at('10T09:00') },
    { sentAt: at('10T08:00'), openedAt: at('11T09:00'), clickedAt: at('11T09:10') },
    { sentAt: at('10T08:00'), unsubscribedAt: at('11T10:00') },
    { sentAt: at('10T08:00'), bouncedAt: at('10T08:01') },
  ]);
  await rows(sms.id, [{ sentAt: at('10T12:00'), repliedAt: at('10T12:10') }, { sentAt: at('10T12:00') }, { status: 'failed', claimedAt: at('11T08:00') }]);
}

/** Goal and sale events naming the hand-made history's conversations 1 (inbox A, assigned to the agent) and 4 (inbox B). */
async function seedConversions(accountId: number, actorId: number) {
  const g1 = await createGoal({ accountId, actorId, name: 'Signed up', eventName: 'signup', description: '', attributionDays: 30, active: true });
  const g2 = await createGoal({ accountId, actorId, name: 'Booked a demo', eventName: 'demo', description: '', attributionDays: 30, active: true });
  const ev = (type: string, subject: number, when: string, payload: Record<string, unknown>) => ({
    accountId,
    type,
    subjectType: type === 'sale_recorded' ? 'sale' : 'conversion_goal',
    subjectId: String(subject),
    payload,
    actorType: 'system' as const,
    occurredAt: at(when),
  });
  const rows = await getDb()
    .insert(schema.domainEvents)
    .values([
      ev('goal_reached', g1.id, '10T11:00', { goalId: g1.id, contactId: 1, conversationId: 880001 }),
      ev('goal_reached', g1.id, '11T17:00', { goalId: g1.id, contactId: 2, conversationId: null }),
      ev('goal_reached', g2.id, '11T18:00', { goalId: g2.id, contactId: 3, conversationId: 880004 }),
      ev('sale_recorded', 1, '10T11:00', { amountMinor: 4990, currency: 'EUR', source: 'tracker', conversationId: 880001 }),
      ev('sale_recorded', 2, '11T09:00', { amountMinor: 10000, currency: 'EUR', source: 'shopify', conversationId: null }),
      ev('sale_recorded', 3, '11T10:00', { amountMinor: 2500, currency: 'usd', source: 'api', conversationId: 880004 }),
    ])
    .returning({ id: schema.domainEvents.id });
  return rows.map((r) => r.id);
}

async function seedAll(domain: string) {
  const a = await createTestAccount({ domain });
  const h = await seedHandMadeHistory({ accountId: a.account.id, agentId: a.owner.id });
  await seedCampaigns(a.account.id);
  const ids = await seedConversions(a.account.id, a.owner.id);
  return { ...a, h, eventIds: [...h.eventIds, ...ids] };
}

describe('campaign and Ecommerce reports', () => {
  it('give the figures computed by hand, from this account only, and a rebuild gives the same', async () => {
    const a = await seedAll('anaconv');
    const b = await seedAll('anaconvother');
    await processEventBatch(
      [...a.eventIds, ...b.eventIds].map((eventId) => ({ eventId })),
      [analyticsProjections],
    );
    const id = a.account.id;

    // Chat: shown 10th 09:00, 10:00, 11th 12:00 (the 9th is the previous period); replied 2 of 3.
    expect(await heads(id, 'chat')).toEqual({ Shown: 3, Replied: 2, 'Reply rate': 200 / 3 });
    const chat = await report(id, 'chat');
    expect(chat.headlines.find((h) => h.label === 'Shown')?.previous).toBe(1);
    expect(chat.charts[0].table.rows).toEqual([
      ['2026-11-10', 2, 1],
      ['2026-11-11', 1, 1],
    ]);
    expect(chat.charts[1].table.rows).toEqual([['Welcome offer', 3, 2, 200 / 3]]);
    expect(await heads(id, 'email')).toEqual({
      Sent: 4,
      Opened: 2,
      Clicked: 1,
      Replied: 0,
      Unsubscribed: 1,
      Bounced: 1,
      'Open rate': 50,
      'Click rate': 25,
      'Reply rate': 0,
      'Unsubscribe rate': 25,
      'Bounce rate': 25,
    });
    expect(await heads(id, 'sms')).toEqual({ Sent: 2, Replied: 1, 'Opted out': 0, Failed: 1, 'Reply rate': 50, 'Opt-out rate': 0 });
    // No push campaign yet: zeros and an honest note; a push campaign's rows (kind 'push') fill the same page.
    const push = await report(id, 'push-notification');
    expect(push.notes[0]).toContain('No push campaigns yet');
    expect(Object.fromEntries(push.headlines.map((h) => [h.label, h.value]))).toEqual({ Sent: 0, Clicked: 0, Failed: 0, 'Click rate': null });
    const [p] = await getDb().insert(schema.campaigns).values({ accountId: id, kind: 'push', name: 'Back in stock', status: 'sent' }).returning();
    await getDb()
      .insert(schema.campaignRecipients)
      .values({ accountId: id, campaignId: p.id, address: 'device-1', status: 'sent', sentAt: at('10T07:00'), clickedAt: at('10T07:30') });
    expect(await heads(id, 'push-notification')).toEqual({ Sent: 1, Clicked: 1, Failed: 0, 'Click rate': 100 });

    // Goals: 3 conversions, 2 naming a conversation; inbox A only: the one of conversation 1.
    expect(await heads(id, 'goals')).toEqual({ Conversions: 3, 'After a conversation': 2, 'Share after a conversation': 200 / 3 });
    expect(await heads(id, 'goals', `&filter=inbox:${a.h.inboxA.id}`)).toEqual({
      Conversions: 1,
      'After a conversation': 1,
      'Share after a conversation': 100,
    });
    const goals = await report(id, 'goals');
    expect(goals.charts[1].table.rows).toEqual([
      ['Signed up', 2, 1, 50],
      ['Booked a demo', 1, 1, 100],
    ]);
    // Conversation 1 was assigned to the agent before the goal: one attributed conversion for them.
    expect(goals.tables[0].rows).toEqual([[`${a.owner.firstName ?? ''} ${a.owner.lastName ?? ''}`.trim() || `#${a.owner.id}`, 1]]);

    // Sales: EUR has two sales (49.90 and 100.00), so it is the main currency; one of them attributed.
    expect(await heads(id, 'sales-tracking')).toEqual({
      Sales: 3,
      'Attributed sales': 2,
      'Revenue (EUR)': 149.9,
      'Attributed revenue (EUR)': 49.9,
      'Average sale (EUR)': 74.95,
    });
    const sales = await report(id, 'sales-tracking');
    expect(sales.tables[0].rows).toEqual([
      ['EUR', 2, 149.9, 49.9],
      ['USD', 1, 25, 25],
    ]);

    // The projections are projections: rebuilt from the log, the same figures.
    await rebuildAnalytics({ accountId: id });
    expect(await heads(id, 'sales-tracking')).toMatchObject({ Sales: 3, 'Revenue (EUR)': 149.9 });
    expect(await heads(id, 'goals')).toMatchObject({ Conversions: 3, 'After a conversation': 2 });
  });

  it('locks the pages without their reports permission (403 on page and CSV) and exports the tables as CSV', async () => {
    const a = await seedAll('anaconvperm');
    await processEventBatch(
      a.eventIds.map((eventId) => ({ eventId })),
      [analyticsProjections],
    );
    const [bare] = await getDb()
      .insert(schema.roles)
      .values({ accountId: a.account.id, name: 'Viewer', permissions: ['conversation_reports'] })
      .returning();
    const viewer = await createTestUser({ accountId: a.account.id, roleId: bare.id });
    const owner = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    const viewerCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: viewer.id });
    const get = (path: string, cookie: string) => app.request(path, { domain: a.domain, cookie });
    for (const slug of ['chat', 'email', 'sms', 'push-notification', 'goals', 'sales-tracking']) {
      const page = await get(`/analytics/${slug}?${query}`, owner);
      expect(page.status, slug).toBe(200);
      expect(page.text, slug).toContain('<svg');
      expect(page.text, slug).toContain('data-testid="headlines"');
      expect((await get(`/analytics/${slug}?${query}`, viewerCookie)).status, slug).toBe(403);
      expect((await get(`/analytics/${slug}/csv?${query}`, viewerCookie)).status, slug).toBe(403);
    }
    expect((await get(`/analytics/chat/csv?${query}`, owner)).text.trim().split('\n')).toEqual(['Day,Shown,Replied', '2026-11-10,2,1', '2026-11-11,1,1']);
    expect((await get(`/analytics/sales-tracking/csv?${query}`, owner)).text.trim().split('\n')).toEqual([
      'Day,Sales,Attributed sales,Revenue (EUR),Attributed revenue (EUR)',
      '2026-11-10,1,1,49.9,49.9',
      '2026-11-11,2,1,100,0',
    ]);
    expect((await get(`/analytics/goals/csv?${query}`, owner)).text.trim().split('\n')).toEqual([
      'Day,Conversions,After a conversation',
      '2026-11-10,1,1',
      '2026-11-11,2,1',
    ]);
  });

  it('Settings → Conversions works without JavaScript: field errors on 400, create, edit, another account gets 404', async () => {
    const a = await createTestAccount({ domain: 'convsettings' });
    const b = await createTestAccount({ domain: 'convsettingsother' });
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
    const agentCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: agent.id });
    const post = (path: string, form: Record<string, string>, c = cookie) => app.request(path, { domain: a.domain, cookie: c, form });

    const bad = await post('/settings/goals/add', { intent: 'save', name: '', eventName: 'sign up', attributionDays: '0' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Goal Name is not allowed to be empty');
    expect(bad.text).toContain('Use letters, digits, dots, dashes, colons or underscores');
    expect(bad.text).toContain('Attribution window must be between 1 and 365 days');
    expect(bad.text).toContain('value="sign up"');
    const made = await post('/settings/goals/add', { intent: 'save', name: 'Signed up', eventName: 'signup', attributionDays: '14', active: 'on' });
    expect(made.status).toBe(302);
    const [goal] = await getDb().select().from(schema.conversionGoals).where(eq(schema.conversionGoals.accountId, a.account.id));
    expect(goal).toMatchObject({ name: 'Signed up', eventName: 'signup', attributionDays: 14, active: true });
    expect((await post('/settings/goals/add', { intent: 'save', name: 'Signed up', eventName: 'x', attributionDays: '1' })).text).toContain(
      'A goal with this name already exists',
    );
    expect((await app.request('/settings/goals', { domain: a.domain, cookie })).text).toContain('Signed up');
    expect((await app.request(`/settings/goals/${goal.id}`, { domain: a.domain, cookie })).status).toBe(200);
    expect((await post(`/settings/goals/${goal.id}`, { intent: 'save', name: 'Signed up', eventName: 'signup', attributionDays: '7' })).status).toBe(302);
    const [edited] = await getDb().select().from(schema.conversionGoals).where(eq(schema.conversionGoals.id, goal.id));
    expect(edited).toMatchObject({ attributionDays: 7, active: false });
    expect((await post(`/settings/goals/${goal.id}`, { intent: 'save', name: 'Mine', eventName: 'x', attributionDays: '1' }, agentCookie)).status).toBe(403);

    const t = await post('/settings/sales-tracker/add', { intent: 'save', name: 'Shop', currency: 'eu', attributionDays: '30' });
    expect(t.status).toBe(400);
    expect(t.text).toContain('Enter a three-letter currency code such as USD or EUR');
    expect((await post('/settings/sales-tracker/add', { intent: 'save', name: 'Shop', currency: 'eur', attributionDays: '30', active: 'on' })).status).toBe(
      302,
    );
    const [tracker] = await getDb().select().from(schema.saleTrackers).where(eq(schema.saleTrackers.accountId, a.account.id));
    expect(tracker).toMatchObject({ name: 'Shop', currency: 'EUR' });

    const otherCookie = await sessionCookie({ domain: b.domain, accountId: b.account.id, userId: b.owner.id });
    expect((await app.request(`/settings/goals/${goal.id}`, { domain: b.domain, cookie: otherCookie })).status).toBe(404);
    expect((await app.request(`/settings/sales-tracker/${tracker.id}`, { domain: b.domain, cookie: otherCookie })).status).toBe(404);
    expect((await app.request(`/settings/sales-tracker/${tracker.id}`, { domain: b.domain, cookie: otherCookie, form: { intent: 'delete' } })).status).toBe(
      404,
    );
    expect((await post(`/settings/sales-tracker/${tracker.id}`, { intent: 'delete' })).status).toBe(302);

    // URL goals (ADR 120): the URL is required for them, the event name is not.
    const noUrl = await post('/settings/goals/add', { intent: 'save', name: 'Thanked', kind: 'url', urlOp: 'starts_with', urlValue: '', attributionDays: '30' });
    expect(noUrl.status).toBe(400);
    expect(noUrl.text).toContain('URL is not allowed to be empty');
    expect(noUrl.text).toContain('value="Thanked"');
    expect((await post('/settings/goals/add', { intent: 'save', name: 'Thanked', kind: 'url', urlOp: 'starts_with', urlValue: '/thank-you', attributionDays: '30', active: 'on' })).status).toBe(302);
    const [urlGoal] = await getDb().select().from(schema.conversionGoals).where(and(eq(schema.conversionGoals.accountId, a.account.id), eq(schema.conversionGoals.name, 'Thanked')));
    expect(urlGoal).toMatchObject({ kind: 'url', urlOp: 'starts_with', urlValue: '/thank-you', eventName: '' });
    expect((await app.request('/settings/goals', { domain: a.domain, cookie })).text).toContain('URL starts with /thank-you');
  });

  it('reaches a URL goal when a known contact views a matching page, once, attributed to the chat (ADR 120)', async () => {
    const a = await createTestAccount({ domain: 'convurl' });
    const inbox = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Shop site' });
    const goal = await createGoal({ accountId: a.account.id, actorId: a.owner.id, name: 'Thanked', kind: 'url', urlOp: 'starts_with', urlValue: '/thank-you', eventName: '', description: '', attributionDays: 30, active: true });
    await createGoal({ accountId: a.account.id, actorId: a.owner.id, name: 'Pricing', kind: 'url', urlOp: 'contains', urlValue: 'pricing', eventName: '', description: '', attributionDays: 30, active: false });
    const session = await widget('/public/widget/session', { inboxId: inbox.id });
    const token = session.json.token as string;
    // A page view before the visitor is a contact reaches nothing.
    expect((await widget('/public/widget/pageview', { url: 'https://shop.test/thank-you?order=1' }, token)).status).toBeLessThan(300);
    const sent = await widget('/public/widget/messages', new URLSearchParams({ text: 'Is shipping free?' }), token);
    const conversationId = Number(sent.json.conversationId);
    await postMessage({ accountId: a.account.id, actorId: a.owner.id, conversationId, kind: 'outgoing', text: 'It is!' });
    for (const url of ['https://shop.test/pricing', 'https://shop.test/thank-you/', 'https://shop.test/thank-you?order=2']) {
      expect((await widget('/public/widget/pageview', { url }, token)).status).toBeLessThan(300);
    }
    const views = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, a.account.id), eq(schema.domainEvents.type, 'page_viewed')));
    expect(views).toHaveLength(4);
    // Each view through the engine's handler, the last one twice (a redelivery).
    const out = await processEventBatch([...views, views[3]].map((e) => ({ eventId: e.id })), [urlGoals]);
    expect(out.filter((x) => x instanceof Error)).toEqual([]);
    const reached = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, a.account.id), eq(schema.domainEvents.type, 'goal_reached')));
    expect(reached).toHaveLength(1);
    expect(reached[0].payload).toMatchObject({ goalId: goal.id, conversationId, url: expect.stringMatching(/^https:\/\/shop\.test\/thank-you/) });
    await processEventBatch(
      reached.map((e) => ({ eventId: e.id })),
      [analyticsProjections],
    );
    const today = new Date().toISOString().slice(0, 10);
    const search = new URLSearchParams(`range=custom&from=${today}&to=${today}`);
    const { range } = parseRange({ search, tz: 'UTC', page: findAnalyticsPage('goals')! });
    const goalHeads = Object.fromEntries((await PAGE_REPORTS.goals({ accountId: a.account.id, range, search })).headlines.map((h) => [h.label, h.value]));
    expect(goalHeads).toMatchObject({ Conversions: 1, 'After a conversation': 1 });
  });

  it("records the messenger's track('sale') and goal events once each, attributed to the chat, on the reports", async () => {
    const a = await createTestAccount({ domain: 'convtrack' });
    const inbox = await createWebInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Shop site' });
    await createSaleTracker({ accountId: a.account.id, actorId: a.owner.id, name: 'Checkout', currency: 'EUR', attributionDays: 30, active: true });
    const goal = await createGoal({
      accountId: a.account.id,
      actorId: a.owner.id,
      name: 'Bought',
      eventName: 'sale',
      description: '',
      attributionDays: 30,
      active: true,
    });
    await createGoal({
      accountId: a.account.id,
      actorId: a.owner.id,
      name: 'Signed up',
      eventName: 'signup',
      description: '',
      attributionDays: 30,
      active: true,
    });

    const session = await widget('/public/widget/session', { inboxId: inbox.id });
    const token = session.json.token as string;
    // Before talking to the team, a visitor without a contact: the sale counts, unattributed, and no goal.
    const form = new URLSearchParams({ text: 'Does it come in blue?' });
    const sent = await widget('/public/widget/messages', form, token);
    expect(sent.status).toBe(200);
    const conversationId = Number(sent.json.conversationId);
    await postMessage({ accountId: a.account.id, actorId: a.owner.id, conversationId, kind: 'outgoing', text: 'It does!' });

    const sale = await widget('/public/widget/track', { name: 'sale', props: { amount: 49.9, currency: 'eur', orderId: 'A-1042' } }, token);
    expect(sale.status).toBe(200);
    expect(sale.json).toMatchObject({ ok: true, sale: { recorded: true }, goals: 1 });
    // The same order again (a reload of the confirmation page): nothing new.
    expect((await widget('/public/widget/track', { name: 'sale', props: { amount: 49.9, orderId: 'A-1042' } }, token)).json).toMatchObject({
      sale: { recorded: false },
      goals: 0,
    });
    expect((await widget('/public/widget/track', { name: 'signup' }, token)).json).toMatchObject({ goals: 1 });
    expect((await widget('/public/widget/track', { name: 'sale', props: {} }, token)).status).toBe(400);
    expect((await widget('/public/widget/track', { name: 'sale', props: { amount: 5 } })).status).toBe(401);

    const [row] = await getDb().select().from(schema.sales).where(eq(schema.sales.accountId, a.account.id));
    expect(row).toMatchObject({ amountMinor: 4990, currency: 'EUR', source: 'tracker', externalId: 'A-1042', conversationId });
    const events = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, a.account.id)));
    const saleEvents = events.filter((e) => e.type === 'sale_recorded');
    expect(saleEvents).toHaveLength(1);
    expect(saleEvents[0].payload).toMatchObject({ amountMinor: 4990, currency: 'EUR', source: 'tracker', externalId: 'A-1042', conversationId });
    expect(events.filter((e) => e.type === 'goal_reached').map((e) => (e.payload as { goalId: number }).goalId)).toContain(goal.id);
    // Another source with the same order id is another sale (the key is account, source and external id).
    expect((await recordSale({ accountId: a.account.id, amountMinor: 100, currency: 'EUR', source: 'shopify', externalId: 'A-1042' })).created).toBe(true);

    await processEventBatch(
      events.map((e) => ({ eventId: e.id })),
      [analyticsProjections],
    );
    const today = new Date().toISOString().slice(0, 10);
    const search = new URLSearchParams(`range=custom&from=${today}&to=${today}`);
    const { range } = parseRange({ search, tz: 'UTC', page: findAnalyticsPage('sales-tracking')! });
    const salesHeads = Object.fromEntries(
      (await PAGE_REPORTS['sales-tracking']({ accountId: a.account.id, range, search })).headlines.map((h) => [h.label, h.value]),
    );
    expect(salesHeads).toMatchObject({ Sales: 1, 'Attributed sales': 1, 'Revenue (EUR)': 49.9 });
    const goalHeads = Object.fromEntries((await PAGE_REPORTS.goals({ accountId: a.account.id, range, search })).headlines.map((h) => [h.label, h.value]));
    expect(goalHeads).toMatchObject({ Conversions: 2, 'After a conversation': 2 });
  });
});

/** A call of the widget's API as the messenger script makes it (JSON or a form, the visitor's token). */
function widget(pathname: string, body: unknown, token?: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const appHost = process.env.APP_HOST ?? 'localhost:3000';
  const isForm = body instanceof URLSearchParams;
  const payload = isForm ? body.toString() : JSON.stringify(body);
  const headers: Record<string, string> = {
    host: appHost,
    origin: 'http://shop.example',
    'content-type': isForm ? 'application/x-www-form-urlencoded' : 'application/json',
  };
  if (token) headers.authorization = `Bearer ${token}`;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: app.port, path: pathname, method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode ?? 0, json });
      });
    });
    req.on('error', reject);
    req.write(payload);
    req.end();
  });
}
