import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { processEventBatch } from '../../engine/events';
import { analyticsProjections } from '../../engine/handlers/analytics';
import { rebuildAnalytics } from '../../app/models/analytics/projection.server';
import { createTestAccount } from '../factories';
import { seedHandMadeHistory } from './analytics-history';

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

describe('analytics projections (ADR 090)', () => {
  it('counts batches once, whatever their size and redeliveries, and the rebuild gives identical figures', async () => {
    const { account, owner } = await createTestAccount({ domain: 'anaproj' });
    const h = await seedHandMadeHistory({ accountId: account.id, agentId: owner.id });
    const other = await createTestAccount({ domain: 'anaprojother' });
    const o = await seedHandMadeHistory({ accountId: other.account.id, agentId: other.owner.id });

    // The engine's way: uneven batches, the middle one delivered twice, the other account's events mixed in.
    const ids = h.eventIds;
    const batches = [ids.slice(0, 3), ids.slice(3, 7), ids.slice(3, 7), ids.slice(7), o.eventIds];
    for (const batch of batches) {
      const out = await processEventBatch(batch.map((eventId) => ({ eventId })), [analyticsProjections]);
      expect(out.filter((x) => x instanceof Error)).toEqual([]);
    }
    const live = await snapshot(account.id);
    const conversations = live.counters.filter((c) => c.metric === 'conversations' && c.dim === 'all').reduce((s, c) => s + c.n, 0);
    expect(conversations).toBe(h.expected.conversations);
    const resolved = live.counters.filter((c) => c.metric === 'resolved' && c.dim === 'all');
    expect(resolved.reduce((s, c) => s + c.n, 0)).toBe(h.expected.resolved);
    expect(resolved.reduce((s, c) => s + c.total, 0)).toBe(h.expected.resolutionSeconds);
    const firsts = live.counters.filter((c) => c.metric === 'first_response' && c.dim === 'all');
    expect(firsts.reduce((s, c) => s + c.n, 0)).toBe(h.expected.firstResponses);
    expect(firsts.reduce((s, c) => s + c.total, 0)).toBe(h.expected.firstResponseSeconds);

    await rebuildAnalytics({ accountId: account.id });
    const rebuilt = await snapshot(account.id);
    expect(rebuilt).toEqual(live);
    // The other account's figures are its own.
    const theirs = await snapshot(other.account.id);
    expect(theirs.counters.length).toBeGreaterThan(0);
    expect(theirs.counters.every((c) => c.accountId === other.account.id)).toBe(true);

    // After the rebuild a late redelivery still counts nothing.
    await processEventBatch(ids.map((eventId) => ({ eventId })), [analyticsProjections]);
    expect(await snapshot(account.id)).toEqual(live);
  });
});
