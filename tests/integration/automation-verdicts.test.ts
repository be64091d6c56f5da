import { and, eq, isNull } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import type { RuleAction, RuleFilter } from '../../app/models/automation/rule-types';
import { listConversationRuns, listRuleRuns } from '../../app/models/automation/run-history.server';
import { runRulesForEvent } from '../../app/models/automation/runner.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { openConversation } from '../../app/models/inbox/conversations.server';
import { createTag } from '../../app/models/productivity/tags.server';
import { createTestAccount } from '../factories';
import { drainEvents, lastEventId } from '../helpers/engine';

// ADR 106: one verdicts row per event instead of one run-log line per (event, rule); the run history still shows
// one run per rule, and a redelivery keeps the earlier verdicts.
async function makeRule(accountId: number, name: string, filters: RuleFilter[], actions: RuleAction[]) {
  const [row] = await getDb()
    .insert(schema.automationRules)
    .values({ accountId, kind: 'workflow', name, event: 'conversation_created', conditions: [], conditionOperator: 'and', filters, actions, sources: [], isActive: true })
    .returning();
  return row;
}

describe('rule verdicts, one row per event', () => {
  it('writes one row for all rules, shows a run per rule, and keeps the earlier verdicts on a redelivery', async () => {
    const { account, owner } = await createTestAccount();
    const inbox = await createInbox({ accountId: account.id, actorId: owner.id, name: 'Support', channelType: 'email', email: `v-${account.id}@example.test` });
    const tag = await createTag({ accountId: account.id, actorId: owner.id, name: 'orders', color: 'blue' });
    const late = await createTag({ accountId: account.id, actorId: owner.id, name: 'late', color: 'red' });
    const hit = await makeRule(account.id, 'orders', [{ field: 'subject', op: 'contains', value: 'order' }], [{ type: 'assign_tag', tagIds: [tag.id] }]);
    const misses = await Promise.all(
      [1, 2, 3].map((i) => makeRule(account.id, `miss ${i}`, [{ field: 'subject', op: 'contains', value: `nothing-${i}` }], [{ type: 'assign_tag', tagIds: [late.id] }])),
    );
    const after = await lastEventId(account.id);
    const { conversation } = await openConversation({
      accountId: account.id,
      inboxId: inbox.id,
      sourceType: 'email',
      subject: 'Where is my order?',
      contact: { email: 'ada@example.test' },
      message: { kind: 'incoming', text: 'Hello' },
    });
    await drainEvents(account.id, { after });
    const [created] = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, account.id), eq(schema.domainEvents.type, 'conversation_created'), eq(schema.domainEvents.subjectId, String(conversation.id))));

    // One row, four verdicts; the run log holds the action line only.
    const rows = await getDb().select().from(schema.automationEventVerdicts).where(eq(schema.automationEventVerdicts.accountId, account.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ eventId: created.id, conversationId: conversation.id });
    expect(Object.fromEntries(Object.entries(rows[0].verdicts).map(([k, v]) => [k, v.step]))).toEqual({
      [hit.id]: 'matched',
      [misses[0].id]: 'not_matched',
      [misses[1].id]: 'not_matched',
      [misses[2].id]: 'not_matched',
    });
    const decisionLines = await getDb()
      .select()
      .from(schema.automationRunLog)
      .where(and(eq(schema.automationRunLog.accountId, account.id), isNull(schema.automationRunLog.actionIndex)));
    expect(decisionLines).toHaveLength(0);

    // The run history: a run per rule, with its reason, per workflow and per conversation.
    const missRuns = await listRuleRuns({ accountId: account.id, ruleId: misses[1].id });
    expect(missRuns.total).toBe(1);
    expect(missRuns.runs[0]).toMatchObject({ eventId: created.id, state: 'not_matched', conversationId: conversation.id });
    expect(missRuns.runs[0].lines[0].detail).toMatchObject({ reason: expect.stringContaining('filter 1') });
    const hitRuns = await listRuleRuns({ accountId: account.id, ruleId: hit.id });
    expect(hitRuns.runs.map((r) => [r.state, r.lines.map((l) => l.step)])).toEqual([['applied', ['matched', 'action_applied']]]);
    const convRuns = await listConversationRuns({ accountId: account.id, conversationId: conversation.id });
    expect(convRuns.map((r) => `${r.ruleName}:${r.state}`).sort()).toEqual(['miss 1:not_matched', 'miss 2:not_matched', 'miss 3:not_matched', 'orders:applied']);

    // A redelivery after a rule was added and another changed to match: the earlier verdicts stand (nothing runs
    // twice, the changed rule stays not matched), the new rule gets its verdict and its action, once.
    const added = await makeRule(account.id, 'added', [{ field: 'subject', op: 'contains', value: 'order' }], [{ type: 'assign_tag', tagIds: [late.id] }]);
    await getDb()
      .update(schema.automationRules)
      .set({ filters: [{ field: 'subject', op: 'contains', value: 'order' }] })
      .where(eq(schema.automationRules.id, misses[0].id));
    await runRulesForEvent(created, { recordAs: 'automation' });
    await runRulesForEvent(created, { recordAs: 'automation' });
    const [again] = await getDb().select().from(schema.automationEventVerdicts).where(eq(schema.automationEventVerdicts.eventId, created.id));
    expect(again.verdicts[String(misses[0].id)].step).toBe('not_matched');
    expect(again.verdicts[String(added.id)].step).toBe('matched');
    const applied = await getDb()
      .select({ ruleId: schema.automationRunLog.ruleId })
      .from(schema.automationRunLog)
      .where(and(eq(schema.automationRunLog.eventId, created.id), eq(schema.automationRunLog.step, 'action_applied')));
    expect(applied.map((a) => a.ruleId).sort((a, b) => a - b)).toEqual([hit.id, added.id].sort((a, b) => a - b));
    const tags = await getDb().select({ tagId: schema.conversationTags.tagId }).from(schema.conversationTags).where(eq(schema.conversationTags.conversationId, conversation.id));
    expect(tags.map((t) => t.tagId).sort((a, b) => a - b)).toEqual([tag.id, late.id].sort((a, b) => a - b));
  });
});
