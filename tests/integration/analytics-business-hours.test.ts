import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { processEventBatch } from '../../engine/events';
import { analyticsProjections } from '../../engine/handlers/analytics';
import { PAGE_REPORTS } from '../../app/models/analytics/page-reports.server';
import { findAnalyticsPage } from '../../app/models/analytics/pages';
import { rebuildAnalytics } from '../../app/models/analytics/projection.server';
import { parseRange } from '../../app/models/analytics/range.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { createTestAccount } from '../factories';

/** Business-hours durations (ADR 120): the SLA's calculator over the conversation's inbox's business hours. */
describe('analytics: business-hours durations', () => {
  it('count only open time, per inbox, and the rebuild gives the same counters', async () => {
    const a = await createTestAccount({ domain: 'anabh' });
    const db = getDb();
    const accountId = a.account.id;
    const [hours] = await db
      .insert(schema.businessHours)
      .values({
        accountId,
        name: 'Office',
        timezone: 'UTC',
        timings: [1, 2, 3, 4, 5].map((day) => ({ day, startTime: '09:00', endTime: '17:00' })),
      })
      .returning();
    const office = await createInbox({ accountId, actorId: a.owner.id, name: 'Office', channelType: 'email', email: 'office@bh.test' });
    const web = await createInbox({ accountId, actorId: a.owner.id, name: 'Web', channelType: 'web' });
    await db.update(schema.inboxes).set({ businessHoursId: hours.id }).where(eq(schema.inboxes.id, office.id));
    const ev = (type: string, conv: number, at: string, payload: Record<string, unknown>, user = false) => ({
      accountId,
      type,
      subjectType: 'conversation',
      subjectId: String(conv),
      payload,
      actorType: user ? ('user' as const) : ('contact' as const),
      actorId: user ? a.owner.id : null,
      occurredAt: new Date(at),
    });
    // Conversation 1 (office hours Mon–Fri 9–17): opened Friday 16:00, answered Monday 10:00 (66 h; 2 open hours),
    // resolved Monday 12:00 (68 h; 4 open hours). Conversation 2 (no business hours): answered in 30 minutes.
    const rows = await db
      .insert(schema.domainEvents)
      .values([
        ev('conversation_created', 990001, '2026-11-13T16:00:00Z', { inboxId: office.id, sourceType: 'email' }),
        ev('conversation_created', 990002, '2026-11-14T10:00:00Z', { inboxId: web.id, sourceType: 'web' }),
        ev('message_created', 990002, '2026-11-14T10:30:00Z', { kind: 'outgoing' }, true),
        ev('message_created', 990001, '2026-11-16T10:00:00Z', { kind: 'outgoing' }, true),
        ev('conversation_updated', 990001, '2026-11-16T12:00:00Z', { changed: { status: { from: 'open', to: 'resolved' } } }, true),
      ])
      .returning({ id: schema.domainEvents.id });
    const ids = rows.map((r) => r.id);
    for (const batch of [ids.slice(0, 2), ids.slice(2), ids.slice(2)]) {
      const out = await processEventBatch(
        batch.map((eventId) => ({ eventId })),
        [analyticsProjections],
      );
      expect(out.filter((x) => x instanceof Error)).toEqual([]);
    }
    const search = new URLSearchParams('range=custom&from=2026-11-13&to=2026-11-16');
    const { range } = parseRange({ search, tz: 'UTC', page: findAnalyticsPage('overview')! });
    const heads = Object.fromEntries((await PAGE_REPORTS.overview({ accountId, range, search })).headlines.map((h) => [h.label, h.value]));
    expect(heads).toMatchObject({
      'Average first response time': (66 * 3600 + 1800) / 2,
      'Average first response time (business hours)': (2 * 3600 + 1800) / 2,
      'Average resolution time': 68 * 3600,
      'Average resolution time (business hours)': 4 * 3600,
    });
    const c = schema.analyticsCounters;
    const d = schema.analyticsDurations;
    const snap = async () => [
      await db.select().from(c).where(eq(c.accountId, accountId)).orderBy(asc(c.metric), asc(c.dim), asc(c.key), asc(c.hour)),
      await db.select().from(d).where(eq(d.accountId, accountId)).orderBy(asc(d.metric), asc(d.dim), asc(d.key), asc(d.hour), asc(d.bin)),
    ];
    const live = await snap();
    await rebuildAnalytics({ accountId });
    expect(await snap()).toEqual(live);
  });
});
