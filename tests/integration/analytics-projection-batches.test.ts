import { asc, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { processEventBatch } from '../../engine/events';
import { analyticsProjections } from '../../engine/handlers/analytics';
import { PROJECTED_EVENT_TYPES, rebuildAnalytics } from '../../app/models/analytics/projection.server';
import { createTestAccount } from '../factories';
import { seedHandMadeHistory } from './analytics-history';
import { seedAreaHistory } from './analytics-area-history';

/** Every counter and histogram row of the account, in key order. */
async function snapshot(accountId: number) {
  const [rows] = await getDb().execute<{ counters: unknown; bins: unknown }>(sql`
    select (select json_agg(c order by c.metric, c.dim, c.key, c.hour) from analytics_counters c where c.account_id = ${accountId}) as counters,
      (select json_agg(d order by d.metric, d.dim, d.key, d.hour, d.bin) from analytics_durations d where d.account_id = ${accountId}) as bins`);
  return rows;
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
    const metrics = (rows: unknown) => new Set((rows as { metric: string }[]).map((r) => r.metric));
    expect([...metrics(live.counters)]).toEqual(expect.arrayContaining(['incoming_messages', 'tagged', 'conversations', 'csat', 'contacts_new']));
    expect(metrics(live.bins).has('first_response')).toBe(true);
    const [{ n }] = await getDb().execute<{ n: number }>(sql`select count(*)::int as n from analytics_applied_events where event_id = any(${`{${ids.join(',')}}`}::bigint[])`);
    expect(Number(n)).toBe(rows.filter((r) => (PROJECTED_EVENT_TYPES as readonly string[]).includes(r.type)).length);

    await rebuildAnalytics({ accountId: account.id });
    expect(await snapshot(account.id)).toEqual(live);
  });
});
