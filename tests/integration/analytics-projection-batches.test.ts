import { asc, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { processEventBatch } from '../../engine/events';
import { analyticsProjections } from '../../engine/handlers/analytics';
import { PROJECTED_EVENT_TYPES, rebuildAnalytics } from '../../app/models/analytics/projection.server';
import { createTestAccount } from '../factories';
import { seedHandMadeHistory } from './analytics-history';
import { seedAreaHistory } from './analytics-area-history';

async function snapshot(accountId: number) {
  const db = getDb();
  const counters = await db
    .select()
    .from(schema.analyticsCounters)
    .where(eq(schema.analyticsCounters.accountId, accountId))
    .orderBy(asc(schema.analyticsCounters.metric), asc(schema.analyticsCounters.dim), asc(schema.analyticsCounters.key), asc(schema.analyticsCounters.hour));
  const bins = await db
    .select()
    .from(schema.analyticsDurations)
    .where(eq(schema.analyticsDurations.accountId, accountId))
    .orderBy(asc(schema.analyticsDurations.metric), asc(schema.analyticsDurations.dim), asc(schema.analyticsDurations.key), asc(schema.analyticsDurations.hour), asc(schema.analyticsDurations.bin));
  return { counters, bins };
}

describe('analytics projection statements (ADR 135)', () => {
  it('a batch of only messages and updates (the conversations-only statement) and any other batch count as the rebuild does', async () => {
    const { account, owner } = await createTestAccount({ domain: 'anabatches' });
    await seedHandMadeHistory({ accountId: account.id, agentId: owner.id });
    await seedAreaHistory({ accountId: account.id, agentId: owner.id });
    // Every event of the account (the histories' and those their set-up wrote), as the rebuild counts them.
    const rows = await getDb()
      .select({ id: schema.domainEvents.id, type: schema.domainEvents.type })
      .from(schema.domainEvents)
      .where(eq(schema.domainEvents.accountId, account.id))
      .orderBy(asc(schema.domainEvents.id));
    const ids = rows.map((r) => Number(r.id));
    const plain = rows.filter((r) => r.type === 'message_created' || r.type === 'conversation_updated').map((r) => Number(r.id));
    const others = rows.filter((r) => !plain.includes(Number(r.id))).map((r) => Number(r.id));
    expect(plain.length).toBeGreaterThan(3);
    expect(others.length).toBeGreaterThan(3);
    // Messages and updates first, two at a time (the conversations-only statement), then the rest one by one, then
    // everything again (a redelivery: nothing counts twice).
    for (let i = 0; i < plain.length; i += 2) await processEventBatch(plain.slice(i, i + 2).map((eventId) => ({ eventId })), [analyticsProjections]);
    for (const id of others) await processEventBatch([{ eventId: id }], [analyticsProjections]);
    await processEventBatch(ids.map((eventId) => ({ eventId })), [analyticsProjections]);
    const live = await snapshot(account.id);
    expect(live.counters.some((c) => c.metric === 'incoming_messages')).toBe(true);
    expect(live.counters.some((c) => c.metric === 'tagged')).toBe(true);
    expect(live.bins.some((b) => b.metric === 'first_response')).toBe(true);
    const [{ n }] = await getDb().execute<{ n: number }>(sql`select count(*)::int as n from analytics_applied_events where event_id = any(${`{${ids.join(',')}}`}::bigint[])`);
    expect(Number(n)).toBe(rows.filter((r) => (PROJECTED_EVENT_TYPES as readonly string[]).includes(r.type)).length);

    await rebuildAnalytics({ accountId: account.id });
    expect(await snapshot(account.id)).toEqual(live);
  });
});
