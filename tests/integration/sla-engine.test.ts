import { and, asc, eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import type { SlaTarget } from '../../db/schema/automation';
import { applySla, checkSlaBreach } from '../../app/models/automation/sla.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { openConversation, postMessage, setConversationPriority } from '../../app/models/inbox/conversations.server';
import { startEngine } from '../../engine/index';
import { stopBoss } from '../../app/utils/jobs.server';
import { createTestAccount } from '../factories';
import { drainEvents, lastEventId, ruleRunLines } from '../helpers/engine';

const PRIORITIES = ['critical', 'high', 'medium', 'low', 'default'] as const;
const targets = (response: SlaTarget['response'], resolve: SlaTarget['resolve']): SlaTarget[] =>
  PRIORITIES.map((priority) => ({ priority, response, resolve }));

async function setup(opts: { targets: SlaTarget[]; escalateTo?: string[]; businessHours?: boolean }) {
  const { account, owner } = await createTestAccount();
  const inbox = await createInbox({
    accountId: account.id,
    actorId: owner.id,
    name: 'Support',
    channelType: 'email',
    email: `sla-${account.id}@example.test`,
  });
  if (opts.businessHours) {
    const [hours] = await getDb()
      .insert(schema.businessHours)
      .values({
        accountId: account.id,
        name: 'London office',
        timezone: 'Europe/London',
        haveHolidays: true,
        timings: [1, 2, 3, 4, 5].map((day) => ({
          day,
          startTime: '09:00',
          endTime: '18:00',
        })),
        holidays: [{ name: 'Founders day', dateVal: '2026-11-16' }],
      })
      .returning();
    await getDb().update(schema.inboxes).set({ businessHoursId: hours.id }).where(eq(schema.inboxes.id, inbox.id));
  }
  const [policy] = await getDb()
    .insert(schema.slaPolicies)
    .values({
      accountId: account.id,
      name: 'Standard',
      targets: opts.targets,
      isEscalate: !!opts.escalateTo,
      escalateTo: opts.escalateTo ?? [],
    })
    .returning();
  return { account, owner, inbox, policy };
}

async function open(accountId: number, inboxId: number, createdAt?: Date) {
  const { conversation } = await openConversation({
    accountId,
    inboxId,
    sourceType: 'email',
    subject: 'Where is my order?',
    contact: { email: 'late@example.com', name: 'Lee Late' },
    message: { kind: 'incoming', text: 'Hello?', createdAt },
  });
  return conversation;
}

async function row(id: number) {
  const [c] = await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, id));
  return c;
}

describe('SLA due times', () => {
  it('count business hours across a weekend and a holiday, in business days for days', async () => {
    const { account, inbox, policy } = await setup({
      targets: targets({ value: 4, unit: 'hour' }, { value: 2, unit: 'day' }),
      businessHours: true,
    });
    // Friday 13 November 2026, 16:00 in London (GMT): 2 open hours left that day; Monday 16th is a holiday.
    const conv = await open(account.id, inbox.id, new Date('2026-11-13T16:00:00Z'));
    const result = await applySla({
      accountId: account.id,
      conversationId: conv.id,
    });
    expect(result).toMatchObject({ applied: true, policyId: policy.id });
    const c = await row(conv.id);
    // 4 hours: Friday 16–18 (2 h), then Tuesday 09–11.
    expect(c.firstResponseDueAt?.toISOString()).toBe('2026-11-17T11:00:00.000Z');
    // 2 business days = 18 open hours: Friday 2 h, Tuesday 9 h, Wednesday 7 h → Wednesday 16:00.
    expect(c.resolveDueAt?.toISOString()).toBe('2026-11-18T16:00:00.000Z');
  });

  it('around the clock without business hours, and per priority', async () => {
    const t = targets({ value: 4, unit: 'hour' }, { value: 2, unit: 'day' });
    t[0] = {
      priority: 'critical',
      response: { value: 15, unit: 'minute' },
      resolve: { value: 1, unit: 'hour' },
    };
    const { account, owner, inbox } = await setup({ targets: t });
    const start = new Date('2026-11-13T16:00:00Z');
    const conv = await open(account.id, inbox.id, start);
    await applySla({ accountId: account.id, conversationId: conv.id });
    expect((await row(conv.id)).firstResponseDueAt?.toISOString()).toBe('2026-11-13T20:00:00.000Z');
    // Raising the priority moves the due times (through the engine's handler of conversation_updated).
    const after = await lastEventId(account.id);
    await setConversationPriority({
      accountId: account.id,
      actorId: owner.id,
      ids: [conv.id],
      priority: 'critical',
    });
    await drainEvents(account.id, { after });
    const c = await row(conv.id);
    expect(c.firstResponseDueAt?.toISOString()).toBe('2026-11-13T16:15:00.000Z');
    expect(c.resolveDueAt?.toISOString()).toBe('2026-11-13T17:00:00.000Z');
  });
});

describe('SLA and the plan', () => {
  it('a plan without slaManagement sets no due times', async () => {
    const { account, inbox } = await setup({ targets: targets({ value: 4, unit: 'hour' }, { value: 2, unit: 'day' }) });
    const { setAccountPlan } = await import('../../app/models/accounts/accounts.server');
    await setAccountPlan({ domain: account.domain, planKey: 'starter' });
    const conv = await open(account.id, inbox.id);
    expect(await applySla({ accountId: account.id, conversationId: conv.id })).toMatchObject({ applied: false });
    expect((await row(conv.id)).firstResponseDueAt).toBeNull();
  });
});

describe('SLA breaches', () => {
  it('a breach marks the conversation, writes sla_breached, drives a workflow and emails the escalation list once', async () => {
    const { account, inbox } = await setup({
      targets: targets({ value: 1, unit: 'minute' }, { value: 2, unit: 'day' }),
      escalateTo: ['lead@example.test', 'boss@example.test'],
    });
    const [rule] = await getDb()
      .insert(schema.automationRules)
      .values({
        accountId: account.id,
        kind: 'workflow',
        name: 'Breach → critical',
        event: 'sla_breached',
        actions: [{ type: 'set_priority', priority: 'critical' }],
        isActive: true,
      })
      .returning();
    const after = await lastEventId(account.id);
    const conv = await open(account.id, inbox.id, new Date(Date.now() - 5 * 60_000));
    await drainEvents(account.id, { after });
    const c = await row(conv.id);
    expect(c.firstResponseDueAt).not.toBeNull();
    // The timer job (what pg-boss runs at the due time) — twice, as a redelivery would.
    const job = {
      accountId: account.id,
      conversationId: conv.id,
      target: 'response' as const,
      dueAt: c.firstResponseDueAt!.toISOString(),
    };
    expect(await checkSlaBreach(job)).toMatchObject({ breached: true });
    expect(await checkSlaBreach(job)).toMatchObject({
      breached: false,
      why: 'already breached',
    });
    await drainEvents(account.id, { after });
    const breached = await row(conv.id);
    expect(breached.responseBreachedAt).not.toBeNull();
    expect(breached.priority).toBe(4); // critical
    const mails = await getDb().select().from(schema.outboundEmails).where(eq(schema.outboundEmails.accountId, account.id));
    const escalations = mails.filter((m) => m.subject.startsWith('SLA breached'));
    expect(escalations.map((m) => m.to).sort()).toEqual(['boss@example.test', 'lead@example.test']);
    expect(escalations[0].text).toContain(`/inbox/${conv.id}`);
    const thread = await getDb().select().from(schema.messages).where(eq(schema.messages.conversationId, conv.id)).orderBy(asc(schema.messages.id));
    expect(thread.some((m) => m.kind === 'system' && m.text.startsWith('SLA breached'))).toBe(true);
    const runs = await ruleRunLines(rule.id);
    expect(runs.map((r) => r.step)).toEqual(['matched', 'action_applied']);
  });

  it('a first reply in time meets the target; a stale timer after a change does nothing', async () => {
    const { account, owner, inbox } = await setup({
      targets: targets({ value: 1, unit: 'hour' }, { value: 2, unit: 'day' }),
    });
    const after = await lastEventId(account.id);
    const conv = await open(account.id, inbox.id);
    await drainEvents(account.id, { after });
    const before = await row(conv.id);
    await postMessage({
      accountId: account.id,
      actorId: owner.id,
      conversationId: conv.id,
      kind: 'outgoing',
      text: 'On it!',
    });
    await drainEvents(account.id, { after });
    expect((await row(conv.id)).firstRespondedAt).not.toBeNull();
    // Pretend the due time came: met, no breach.
    await getDb().update(schema.conversations).set({ firstResponseDueAt: new Date() }).where(eq(schema.conversations.id, conv.id));
    const due = (await row(conv.id)).firstResponseDueAt!.toISOString();
    expect(
      await checkSlaBreach({
        accountId: account.id,
        conversationId: conv.id,
        target: 'response',
        dueAt: due,
      }),
    ).toMatchObject({ breached: false, why: 'met' });
    expect(
      await checkSlaBreach({
        accountId: account.id,
        conversationId: conv.id,
        target: 'resolve',
        dueAt: before.firstResponseDueAt!.toISOString(),
      }),
    ).toMatchObject({
      breached: false,
      why: 'stale timer',
    });
    // Another account's timer data cannot touch this conversation.
    const other = await createTestAccount();
    expect(
      await checkSlaBreach({
        accountId: other.account.id,
        conversationId: conv.id,
        target: 'resolve',
        dueAt: due,
      }),
    ).toMatchObject({ breached: false, why: 'gone' });
  });
});

describe('SLA timers run as jobs at their time', () => {
  let engine: Awaited<ReturnType<typeof startEngine>> | undefined;
  afterAll(async () => {
    await engine?.stop();
    await stopBoss();
  });

  it('the engine fires a breach shortly after the due time', async () => {
    engine = await startEngine({ mode: 'inline', concurrency: 1 });
    const { account, inbox } = await setup({
      targets: targets({ value: 1, unit: 'minute' }, { value: 2, unit: 'day' }),
    });
    // Opened 58 s ago with a 1-minute target: due in about 2 s.
    const conv = await open(account.id, inbox.id, new Date(Date.now() - 58_000));
    const deadline = Date.now() + 20_000;
    let c = await row(conv.id);
    while (!c.responseBreachedAt && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      c = await row(conv.id);
    }
    expect(c.responseBreachedAt).not.toBeNull();
    expect(c.responseBreachedAt!.getTime()).toBeGreaterThanOrEqual(c.firstResponseDueAt!.getTime());
    const [event] = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, account.id), eq(schema.domainEvents.type, 'sla_breached'))).orderBy(schema.domainEvents.id);
    expect(event.payload).toMatchObject({ target: 'response' });
  });
});
