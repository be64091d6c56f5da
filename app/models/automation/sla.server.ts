import { and, eq, isNull, sql } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import type { SlaTarget } from '../../../db/schema/automation';
import { accountHasFeature } from '../accounts/accounts.server';
import { scheduleSlaWarning } from '../notifications/notifications.server';
import { emitEvent } from '../events/events.server';
import { priorityName } from '../inbox/filters';
import { addMessage } from '../inbox/messages.server';
import { sendEmail } from '../mail/mail.server';
import { enqueueInTx, QUEUES } from '../../utils/jobs.server';
import { publishToAccount } from '../../utils/live.server';
import { accountLink } from '../../utils/tenant.server';
import { formatDateTime } from '../../utils/format';
import { getInboxBusinessHours } from './business-hours.server';
import { dueAfter, slaDurationMs } from './business-time';
import { findPolicyForInbox, getSlaPolicy } from './sla-policies.server';

export type SlaTargetKind = 'response' | 'resolve';
type Conversation = typeof schema.conversations.$inferSelect;

/** The policy's target for a priority, falling back to its "default" row. */
export function targetFor(targets: SlaTarget[], priority: number) {
  const name = priorityName(priority);
  return targets.find((t) => t.priority === name) ?? targets.find((t) => t.priority === 'default') ?? null;
}

/**
 * Sets (or resets) a conversation's SLA due times from its inbox's policy, its priority and the inbox's business
 * hours, counted from when the conversation was opened, and schedules a timer job at each due time — the timers are
 * jobs at their exact time, not table scans. A conversation without a policy loses its due times.
 */
export async function applySla(opts: { accountId: number; conversationId: number }) {
  return getDb().transaction(async (tx) => {
    const read = (lock: boolean) => {
      const q = tx
        .select()
        .from(schema.conversations)
        .where(and(eq(schema.conversations.accountId, opts.accountId), eq(schema.conversations.id, opts.conversationId), isNull(schema.conversations.deletedAt)));
      return lock ? q.for('update') : q;
    };
    // Read first without the row's lock: most calls find the due times standing (a workflow's priority change that the
    // conversation's first SLA pass already applied) and write nothing, without waiting on another writer (ADR 140).
    const [seen] = await read(false);
    if (!seen) return { applied: false as const };
    const seenPlan = await slaPlan(tx, opts.accountId, seen);
    if (stands(seen, seenPlan)) return seenPlan.answer;
    const [c] = await read(true);
    if (!c) return { applied: false as const };
    // The priority, inbox or opening time changed since the first read: the plan again, from the locked row. Whether
    // it stands is judged on the locked row either way (another pass may have written the same due times meanwhile).
    const plan = c.priority === seen.priority && c.inboxId === seen.inboxId && c.createdAt.getTime() === seen.createdAt.getTime() ? seenPlan : await slaPlan(tx, opts.accountId, c);
    if (stands(c, plan)) return plan.answer;
    if (!plan.policy || !plan.due) {
      await tx
        .update(schema.conversations)
        .set({
          slaPolicyId: null,
          firstResponseDueAt: null,
          resolveDueAt: null,
        })
        .where(and(eq(schema.conversations.accountId, opts.accountId), eq(schema.conversations.id, c.id)));
      await publishToAccount(
        opts.accountId,
        {
          type: 'conversation.updated',
          conversationId: c.id,
          changed: ['sla'],
        },
        { tx },
      );
      return { applied: false as const };
    }
    const { policy } = plan;
    const { firstResponseDueAt, resolveDueAt } = plan.due;
    await tx
      .update(schema.conversations)
      .set({ slaPolicyId: policy.id, firstResponseDueAt, resolveDueAt })
      .where(and(eq(schema.conversations.accountId, opts.accountId), eq(schema.conversations.id, c.id)));
    if (!c.firstRespondedAt && !c.responseBreachedAt)
      await scheduleCheck(tx, {
        accountId: opts.accountId,
        conversationId: c.id,
        target: 'response',
        dueAt: firstResponseDueAt,
      });
    if (c.status !== 'resolved' && !c.resolveBreachedAt)
      await scheduleCheck(tx, {
        accountId: opts.accountId,
        conversationId: c.id,
        target: 'resolve',
        dueAt: resolveDueAt,
      });
    await publishToAccount(opts.accountId, { type: 'conversation.updated', conversationId: c.id, changed: ['sla'] }, { tx });
    return {
      applied: true as const,
      policyId: policy.id,
      firstResponseDueAt,
      resolveDueAt,
    };
  });
}

/**
 * The policy and due times a conversation's inbox, priority and opening time lead to; `answer` is what applySla
 * answers when they stand already (see `stands`), having written nothing.
 */
async function slaPlan(tx: Tx, accountId: number, c: Conversation) {
  // SLA management is a plan feature: without it, no due times (and existing ones are cleared).
  const policy = (await accountHasFeature({ accountId, key: 'workflowAutomation/slaManagement' }, tx))
    ? await findPolicyForInbox({ accountId, inboxId: c.inboxId }, tx)
    : null;
  const target = policy ? targetFor(policy.targets, c.priority) : null;
  if (!policy || !target) return { policy: null, due: null, answer: { applied: false as const } };
  const hours = await getInboxBusinessHours({ accountId, inboxId: c.inboxId }, tx);
  const firstResponseDueAt = dueAfter(hours, c.createdAt, slaDurationMs(target.response, hours));
  const resolveDueAt = dueAfter(hours, c.createdAt, slaDurationMs(target.resolve, hours));
  return {
    policy,
    due: { firstResponseDueAt, resolveDueAt },
    answer: { applied: true as const, policyId: policy.id, firstResponseDueAt, resolveDueAt, unchanged: true },
  };
}

/**
 * Whether the conversation already has the plan's policy and due times (or none, when the plan has none): a workflow
 * changed the priority before the conversation's SLA was first applied, and the priority's event finds the due times
 * it leads to. The checks scheduled then stand; nothing to write.
 */
function stands(c: Conversation, plan: Awaited<ReturnType<typeof slaPlan>>) {
  if (!plan.policy || !plan.due) return c.slaPolicyId === null && !c.firstResponseDueAt && !c.resolveDueAt;
  return (
    c.slaPolicyId === plan.policy.id &&
    c.firstResponseDueAt?.getTime() === plan.due.firstResponseDueAt.getTime() &&
    c.resolveDueAt?.getTime() === plan.due.resolveDueAt.getTime()
  );
}

async function scheduleCheck(
  tx: Tx,
  job: {
    accountId: number;
    conversationId: number;
    target: SlaTargetKind;
    dueAt: Date;
  },
) {
  const startAfter = job.dueAt.getTime() > Date.now() ? job.dueAt : new Date();
  await scheduleSlaWarning(tx, job);
  return enqueueInTx(tx, QUEUES.slaBreachCheck, { ...job, dueAt: job.dueAt.toISOString() }, { startAfter });
}

/** An agent's first reply meets the first-response target (a note does not). */
export async function recordFirstResponse(opts: { accountId: number; conversationId: number; at: Date }) {
  const rows = await getDb()
    .update(schema.conversations)
    .set({ firstRespondedAt: opts.at })
    .where(
      and(eq(schema.conversations.accountId, opts.accountId), eq(schema.conversations.id, opts.conversationId), isNull(schema.conversations.firstRespondedAt)),
    )
    .returning({ id: schema.conversations.id });
  return rows.length > 0;
}

/** A conversation reopened after its resolve due time is late at once: check it now. */
export async function recheckAfterReopen(opts: { accountId: number; conversationId: number }) {
  return getDb().transaction(async (tx) => {
    const [c] = await tx
      .select()
      .from(schema.conversations)
      .where(and(eq(schema.conversations.accountId, opts.accountId), eq(schema.conversations.id, opts.conversationId)));
    if (!c?.resolveDueAt || c.resolveBreachedAt || c.status === 'resolved') return false;
    await scheduleCheck(tx, {
      accountId: opts.accountId,
      conversationId: c.id,
      target: 'resolve',
      dueAt: c.resolveDueAt,
    });
    return true;
  });
}

function isMet(c: Conversation, target: SlaTargetKind, due: Date) {
  if (target === 'response') return !!c.firstRespondedAt && c.firstRespondedAt.getTime() <= due.getTime();
  return c.status === 'resolved' && !!c.resolvedAt && c.resolvedAt.getTime() <= due.getTime();
}

/**
 * The timer at a due time: if the target is still unmet and the due time is still the conversation's (a later
 * priority change moves it and schedules its own timer), marks the breach, writes `sla_breached` (which drives
 * workflows and the escalation mail) and a line in the thread, all in one transaction.
 */
export async function checkSlaBreach(opts: { accountId: number; conversationId: number; target: SlaTargetKind; dueAt: string }) {
  return getDb().transaction(async (tx) => {
    const [c] = await tx
      .select()
      .from(schema.conversations)
      .where(and(eq(schema.conversations.accountId, opts.accountId), eq(schema.conversations.id, opts.conversationId)))
      .for('update');
    if (!c || c.deletedAt) return { breached: false, why: 'gone' };
    const due = opts.target === 'response' ? c.firstResponseDueAt : c.resolveDueAt;
    if (!due || due.toISOString() !== new Date(opts.dueAt).toISOString()) return { breached: false, why: 'stale timer' };
    if (opts.target === 'response' ? c.responseBreachedAt : c.resolveBreachedAt) return { breached: false, why: 'already breached' };
    if (isMet(c, opts.target, due)) {
      // The target met, recorded once at its due time for the SLA report (ADR 103); a redelivered timer adds nothing.
      const [seen] = await tx
        .select({ id: schema.domainEvents.id })
        .from(schema.domainEvents)
        .where(
          and(
            eq(schema.domainEvents.accountId, opts.accountId),
            eq(schema.domainEvents.subjectType, 'conversation'),
            eq(schema.domainEvents.subjectId, String(c.id)),
            eq(schema.domainEvents.type, 'sla_met'),
            sql`${schema.domainEvents.payload}->>'target' = ${opts.target} and ${schema.domainEvents.payload}->>'dueAt' = ${due.toISOString()}`,
          ),
        )
        .limit(1);
      if (!seen)
        await emitEvent(tx, {
          accountId: opts.accountId,
          type: 'sla_met',
          subjectType: 'conversation',
          subjectId: c.id,
          payload: { target: opts.target, dueAt: due.toISOString(), policyId: c.slaPolicyId, priority: priorityName(c.priority), inboxId: c.inboxId, contactId: c.contactId },
          actor: { type: 'system' },
        });
      return { breached: false, why: 'met' };
    }
    if (due.getTime() > Date.now() + 500) {
      // Woken early (a clock between machines): sleep again until the due time.
      await scheduleCheck(tx, {
        accountId: opts.accountId,
        conversationId: c.id,
        target: opts.target,
        dueAt: due,
      });
      return { breached: false, why: 'early' };
    }
    const now = new Date();
    await tx
      .update(schema.conversations)
      .set(opts.target === 'response' ? { responseBreachedAt: now } : { resolveBreachedAt: now })
      .where(and(eq(schema.conversations.accountId, opts.accountId), eq(schema.conversations.id, c.id)));
    const event = await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'sla_breached',
      subjectType: 'conversation',
      subjectId: c.id,
      payload: {
        target: opts.target,
        dueAt: due.toISOString(),
        policyId: c.slaPolicyId,
        priority: priorityName(c.priority),
        inboxId: c.inboxId,
        contactId: c.contactId,
        lateMs: now.getTime() - due.getTime(),
      },
      actor: { type: 'system' },
    });
    await addMessage(tx, {
      accountId: opts.accountId,
      conversationId: c.id,
      kind: 'system',
      text: opts.target === 'response' ? 'SLA breached: no first response by the due time' : 'SLA breached: not resolved by the due time',
      causedByEventId: event.id,
    });
    await publishToAccount(opts.accountId, { type: 'conversation.updated', conversationId: c.id, changed: ['sla'] }, { tx });
    return { breached: true, eventId: event.id };
  });
}

/** sla_breached: mails the policy's escalation list (when escalation is on), once per breach. */
export async function escalateBreach(opts: { accountId: number; conversationId: number; target: SlaTargetKind; dueAt: string; policyId: number | null }) {
  if (!opts.policyId) return { sent: 0 };
  const policy = await getSlaPolicy({
    accountId: opts.accountId,
    id: opts.policyId,
  });
  if (!policy?.isEscalate || policy.escalateTo.length === 0) return { sent: 0 };
  const [c] = await getDb()
    .select({
      subject: schema.conversations.subject,
      inboxId: schema.conversations.inboxId,
    })
    .from(schema.conversations)
    .where(and(eq(schema.conversations.accountId, opts.accountId), eq(schema.conversations.id, opts.conversationId)));
  const [account] = await getDb().select({ domain: schema.accounts.domain }).from(schema.accounts).where(eq(schema.accounts.id, opts.accountId));
  if (!c || !account) return { sent: 0 };
  const link = accountLink(account.domain, `/inbox/${opts.conversationId}`);
  const what = opts.target === 'response' ? 'first response' : 'resolution';
  const due = formatDateTime(new Date(opts.dueAt), {
    timezone: 'UTC',
    timeFormat: '24',
    dateFormat: 'YYYY-MM-DD',
  });
  for (const to of policy.escalateTo) {
    await sendEmail({
      accountId: opts.accountId,
      to,
      subject: `SLA breached: ${what} of conversation #${opts.conversationId}`,
      text: `The ${what} of conversation #${opts.conversationId} "${c.subject}" was due at ${due} UTC (policy ${policy.name}).\n\nOpen it: ${link}\n`,
    });
  }
  return { sent: policy.escalateTo.length };
}
