import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { getDb, schema } from '../../db/client';
import { processEvent } from '../../engine/events';

/**
 * Runs the engine's handlers over the account's domain events in order, including the events those handlers
 * write, until nothing new is left — the engine's work, made deterministic for a test (no queue in between).
 * Returns the events it processed.
 */
export async function drainEvents(accountId: number, opts: { after?: number; maxRounds?: number } = {}) {
  let last = opts.after ?? 0;
  const seen: (typeof schema.domainEvents.$inferSelect)[] = [];
  for (let round = 0; round < (opts.maxRounds ?? 50); round++) {
    const events = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, accountId), gt(schema.domainEvents.id, last)))
      .orderBy(asc(schema.domainEvents.id));
    if (events.length === 0) return seen;
    for (const e of events) {
      await processEvent(e.id);
      seen.push(e);
      last = e.id;
    }
  }
  throw new Error('events kept coming after 50 rounds: a loop?');
}

/** The id of the account's newest domain event (0 when none): drain after it to skip set-up events. */
export async function lastEventId(accountId: number) {
  const [row] = await getDb()
    .select({
      id: sql<number>`coalesce(max(${schema.domainEvents.id}), 0)::int`,
    })
    .from(schema.domainEvents)
    .where(eq(schema.domainEvents.accountId, accountId));
  return Number(row.id);
}

/**
 * A rule's run-log lines, oldest first, as the run history sees them (ADR 106): the run log's own lines and the
 * rule's verdict from each event's verdicts row, shaped like a run-log row.
 */
export async function ruleRunLines(ruleId: number) {
  const rows = await getDb().execute<{
    id: number;
    event_id: number;
    step: string;
    action_type: string | null;
    action_index: number | null;
    detail: Record<string, unknown>;
    conversation_id: number | null;
    contact_id: number | null;
  }>(sql`
    select id, event_id, step, action_type, action_index, detail, conversation_id, contact_id from ${schema.automationRunLog} where rule_id = ${ruleId}
    union all
    select v.id, v.event_id, v.verdicts->${String(ruleId)}->>'step', null, null, (v.verdicts->${String(ruleId)}) - 'step', v.conversation_id, v.contact_id
      from ${schema.automationEventVerdicts} v where v.verdicts ? ${String(ruleId)}
    order by 1, 5 nulls first`);
  return rows.map((r) => ({
    id: Number(r.id),
    eventId: Number(r.event_id),
    ruleId,
    step: r.step,
    actionType: r.action_type,
    actionIndex: r.action_index === null ? null : Number(r.action_index),
    detail: r.detail,
    conversationId: r.conversation_id === null ? null : Number(r.conversation_id),
    contactId: r.contact_id === null ? null : Number(r.contact_id),
  }));
}
