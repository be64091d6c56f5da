import { and, asc, desc, eq, gt, isNotNull, isNull, ne, sql } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import { getInboxBusinessHours } from '../automation/business-hours.server';
import { isOpenAt } from '../automation/business-time';
import { isInboxOnline, searchWidgetHelp, type VisitorMessage, type WidgetVisitor } from '../channels/widget.server';
import { assignConversations, InvalidReferenceError, setConversationStatus } from '../inbox/conversations.server';
import { addMessage } from '../inbox/messages.server';
import { meetingLinkFor } from '../meetings/bookings.server';
import { helpUrl } from '../knowledge-base/help-host.server';
import { getLogger } from '../../utils/logger.server';
import { HUMAN_WORDS, type ChatbotConditions, type ChatbotStep, type RunStatus } from './constants';
import type { Chatbot } from './chatbots.server';
import { pushToWidget } from './widget-push.server';

/**
 * A chatbot's turn (ADR 075): runs right after the visitor's message is committed, in the same request and in its
 * own transaction, so its messages reach the widget socket as agents' replies do (message.created on commit). The
 * run row is locked for the turn, so two quick messages are answered one after the other, never twice.
 */

type Run = typeof schema.chatbotRuns.$inferSelect;
export type ArticleLink = (domain: string, path: string) => string;

/** How many steps one turn may walk before it must wait (the flow check already refuses loops that never wait). */
const MAX_STEPS_PER_TURN = 30;
const HANDOVER_ON_REQUEST = 'Of course, let me connect you with someone from the team.';

export async function runChatbotTurn(opts: {
  visitor: WidgetVisitor;
  conversationId: number;
  text: string;
  /** The page the visitor is on, for bots whose condition names a page. */
  pageUrl?: string | null;
  articleLink: ArticleLink;
  now?: Date;
}) {
  const { visitor, conversationId } = opts;
  const accountId = visitor.accountId;
  return getDb().transaction(async (tx) => {
    const [run] = await tx
      .select()
      .from(schema.chatbotRuns)
      .where(and(eq(schema.chatbotRuns.accountId, accountId), eq(schema.chatbotRuns.conversationId, conversationId)))
      .for('update');
    if (!run) return startRun(tx, { ...opts, accountId });
    if (run.status !== 'running') return { status: run.status, said: 0 };
    const [bot] = await tx
      .select()
      .from(schema.chatbots)
      .where(and(eq(schema.chatbots.accountId, accountId), eq(schema.chatbots.id, run.botId)));
    if (!bot) return end(tx, run, 'stopped', 'deleted');
    // An agent wrote to the visitor: the bot has stopped for good.
    if (await agentReplied(tx, { accountId, conversationId, since: run.startedAt })) return end(tx, run, 'stopped', 'agent');
    const turn = new Turn(tx, bot, run, opts);
    if (HUMAN_WORDS.test(opts.text)) {
      const handover = bot.steps.find((s) => s.type === 'handover');
      await turn.handOver(handover?.type === 'handover' ? { ...handover, text: HANDOVER_ON_REQUEST } : null, 'human');
      return turn.result();
    }
    await turn.answer(opts.text);
    return turn.result();
  });
}

async function agentReplied(tx: Tx, opts: { accountId: number; conversationId: number; since: Date }) {
  const m = schema.messages;
  const [row] = await tx
    .select({ id: m.id })
    .from(m)
    .where(and(eq(m.accountId, opts.accountId), eq(m.conversationId, opts.conversationId), eq(m.kind, 'outgoing'), isNotNull(m.senderUserId), isNull(m.deletedAt), gt(m.createdAt, opts.since)))
    .limit(1);
  return Boolean(row);
}

async function end(tx: Tx, run: Run, status: RunStatus, reason: string) {
  await tx
    .update(schema.chatbotRuns)
    .set({ status, endReason: reason, endedAt: new Date(), waitingStepId: null, waitingMessageId: null })
    .where(and(eq(schema.chatbotRuns.accountId, run.accountId), eq(schema.chatbotRuns.id, run.id)));
  return { status, said: 0 };
}

/** A new conversation: the first enabled bot of its inbox (highest priority) whose conditions hold takes it. */
async function startRun(tx: Tx, opts: Parameters<typeof runChatbotTurn>[0] & { accountId: number }) {
  const { accountId, conversationId, visitor } = opts;
  const [conversation] = await tx
    .select({ messageCount: schema.conversations.messageCount, contactId: schema.conversations.contactId, createdAt: schema.conversations.createdAt })
    .from(schema.conversations)
    .where(and(eq(schema.conversations.accountId, accountId), eq(schema.conversations.id, conversationId)));
  // Bots greet new conversations only; one that already went on (or an agent wrote in) is the team's.
  if (!conversation || conversation.messageCount > 1) return { status: null, said: 0 };
  const bots = await tx
    .select()
    .from(schema.chatbots)
    .where(and(eq(schema.chatbots.accountId, accountId), eq(schema.chatbots.enabled, true), sql`${visitor.inboxId} = any(${schema.chatbots.inboxIds})`, sql`jsonb_array_length(${schema.chatbots.steps}) > 0`))
    .orderBy(desc(schema.chatbots.priority), asc(schema.chatbots.id));
  if (bots.length === 0) return { status: null, said: 0 };
  // The visitor's facts cost four queries: read only when some bot has conditions (the reply is on the clock).
  const plain = (c: ChatbotConditions) => !c.pageUrl && c.visitor === 'any' && c.hours === 'any';
  const facts = bots.every((b) => plain(b.conditions))
    ? null
    : await visitorFacts(tx, { accountId, inboxId: visitor.inboxId, contactId: conversation.contactId, conversationId, visitorId: visitor.id, pageUrl: opts.pageUrl, now: opts.now });
  const bot = bots.find((b) => !facts || conditionsHold(b.conditions, facts));
  if (!bot) return { status: null, said: 0 };
  const [run] = await tx.insert(schema.chatbotRuns).values({ accountId, botId: bot.id, conversationId, lastAnswer: opts.text.slice(0, 1000) }).returning();
  const turn = new Turn(tx, bot, run, opts);
  await turn.walk(bot.steps[0].id);
  return turn.result();
}

type Facts = { pageUrl: string; returning: boolean; open: boolean };

async function visitorFacts(
  tx: Tx,
  opts: { accountId: number; inboxId: number; contactId: number | null; conversationId: number; visitorId: string; pageUrl?: string | null; now?: Date },
): Promise<Facts> {
  let pageUrl = opts.pageUrl ?? '';
  if (!pageUrl) {
    const [view] = await tx
      .select({ url: schema.pageViews.url })
      .from(schema.pageViews)
      .where(and(eq(schema.pageViews.accountId, opts.accountId), eq(schema.pageViews.visitorId, opts.visitorId)))
      .orderBy(desc(schema.pageViews.id))
      .limit(1);
    pageUrl = view?.url ?? '';
  }
  const [earlier] = opts.contactId
    ? await tx
        .select({ id: schema.conversations.id })
        .from(schema.conversations)
        .where(and(eq(schema.conversations.accountId, opts.accountId), eq(schema.conversations.contactId, opts.contactId), ne(schema.conversations.id, opts.conversationId)))
        .limit(1)
    : [];
  const hours = await getInboxBusinessHours({ accountId: opts.accountId, inboxId: opts.inboxId }, tx);
  return { pageUrl, returning: Boolean(earlier), open: hours ? isOpenAt(hours, opts.now ?? new Date()) : true };
}

export function conditionsHold(c: ChatbotConditions, f: Facts) {
  if (c.pageUrl && !f.pageUrl.toLowerCase().includes(c.pageUrl.toLowerCase())) return false;
  if (c.visitor === 'new' && f.returning) return false;
  if (c.visitor === 'returning' && !f.returning) return false;
  if (c.hours === 'open' && !f.open) return false;
  if (c.hours === 'closed' && f.open) return false;
  return true;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9 ().-]{6,20}$/;

/** One turn of one run: walks the flow from a step until it must wait, saying each step's message. */
class Turn {
  private said = 0;
  /** What this turn said, as the visitor sees it (pushed to the widget once committed, ADR 124). */
  private messages: VisitorMessage[] = [];
  private status: RunStatus = 'running';
  private waiting: { stepId: string; messageId: number } | null = null;

  constructor(
    private tx: Tx,
    private bot: Chatbot,
    private run: Run,
    private opts: { visitor: WidgetVisitor; conversationId: number; text: string; articleLink: ArticleLink; now?: Date },
  ) {}

  private step(id: string | null) {
    return id ? this.bot.steps.find((s) => s.id === id) : undefined;
  }

  private async say(text: string) {
    const message = await addMessage(this.tx, {
      accountId: this.run.accountId,
      conversationId: this.opts.conversationId,
      kind: 'outgoing',
      text,
      botId: this.bot.id,
    });
    this.said++;
    this.messages.push({ id: message.id, from: 'agent', text: message.text, at: message.createdAt.toISOString(), author: this.bot.name, edited: false, attachments: [] });
    return message;
  }

  /** The visitor answered the step the run waits on. */
  async answer(text: string) {
    const step = this.step(this.run.waitingStepId);
    this.run.lastAnswer = text.slice(0, 1000);
    if (!step) return this.walk(null);
    const value = text.trim();
    switch (step.type) {
      case 'question': {
        const choice = step.choices.find((c) => c.label.toLowerCase() === value.toLowerCase());
        if (choice) return this.walk(choice.next);
        if (step.next) return this.walk(step.next);
        const asked = await this.say(`Please choose one of: ${step.choices.map((c) => c.label).join(', ')}.`);
        this.waiting = { stepId: step.id, messageId: asked.id };
        return;
      }
      case 'collect': {
        const ok = step.field === 'email' ? EMAIL.test(value) && value.length <= 200 : step.field === 'phone' ? PHONE.test(value) : value.length >= 1 && value.length <= 100;
        if (!ok) {
          const again = await this.say(step.field === 'email' ? 'That does not look like an email address. Please try again.' : step.field === 'phone' ? 'That does not look like a phone number. Please try again.' : 'Please tell me your name.');
          this.waiting = { stepId: step.id, messageId: again.id };
          return;
        }
        await this.saveDetail(step.field, value);
        return this.walk(step.next);
      }
      case 'search': {
        const inbox = (await this.tx
          .select()
          .from(schema.inboxes)
          .where(and(eq(schema.inboxes.accountId, this.run.accountId), eq(schema.inboxes.id, this.opts.visitor.inboxId))))[0];
        const found = inbox ? await searchWidgetHelp({ inbox, q: value.slice(0, 200) }) : null;
        const hits = found?.results.slice(0, 3) ?? [];
        await this.say(
          hits.length
            ? `These articles may help:\n${hits.map((h) => `• ${h.title}: ${this.opts.articleLink(found!.domain, h.path)}`).join('\n')}`
            : 'I could not find an article about that.',
        );
        return this.walk(step.next);
      }
      default:
        return this.walk(null);
    }
  }

  /** The contact of the conversation gets the detail (an email another contact already has is left alone). */
  private async saveDetail(field: 'email' | 'name' | 'phone', value: string) {
    const [conv] = await this.tx
      .select({ contactId: schema.conversations.contactId })
      .from(schema.conversations)
      .where(and(eq(schema.conversations.accountId, this.run.accountId), eq(schema.conversations.id, this.opts.conversationId)));
    if (!conv?.contactId) return;
    const c = schema.contacts;
    const where = and(eq(c.accountId, this.run.accountId), eq(c.id, conv.contactId));
    if (field === 'email') {
      const email = value.toLowerCase();
      const [taken] = await this.tx
        .select({ id: c.id })
        .from(c)
        .where(and(eq(c.accountId, this.run.accountId), sql`lower(${c.email}) = ${email}`, ne(c.id, conv.contactId)));
      if (!taken) await this.tx.update(c).set({ email, updatedAt: new Date() }).where(where);
    } else if (field === 'phone') {
      await this.tx.update(c).set({ phone: value, updatedAt: new Date() }).where(where);
    } else {
      const [first, ...rest] = value.split(/\s+/);
      await this.tx.update(c).set({ firstName: first.slice(0, 100), lastName: rest.join(' ').slice(0, 100), updatedAt: new Date() }).where(where);
    }
  }

  async walk(from: string | null) {
    let id = from;
    for (let i = 0; i < MAX_STEPS_PER_TURN; i++) {
      const step = this.step(id);
      if (!step) {
        this.status = 'completed';
        return;
      }
      switch (step.type) {
        case 'message':
          await this.say(step.text);
          id = step.next;
          continue;
        case 'question':
        case 'collect':
        case 'search': {
          const asked = await this.say(step.text);
          this.waiting = { stepId: step.id, messageId: asked.id };
          return;
        }
        case 'branch': {
          const answer = (this.run.lastAnswer ?? '').toLowerCase();
          id = step.rules.find((r) => answer.includes(r.contains.toLowerCase()))?.next ?? step.next;
          continue;
        }
        case 'hours': {
          const inbox = (await this.tx
            .select()
            .from(schema.inboxes)
            .where(and(eq(schema.inboxes.accountId, this.run.accountId), eq(schema.inboxes.id, this.opts.visitor.inboxId))))[0];
          const online = inbox ? await isInboxOnline({ accountId: this.run.accountId, inbox, now: this.opts.now }) : false;
          id = online ? step.open : step.closed;
          continue;
        }
        case 'meeting': {
          // The booking link carries this conversation (signed), so the booking is noted here (ADR 088).
          const offer = await meetingLinkFor(this.tx, { accountId: this.run.accountId, conversationId: this.opts.conversationId, meetingId: step.meetingId });
          if (offer) await this.say(`${step.text}\n${offer.url}`);
          else getLogger().warn({ accountId: this.run.accountId, botId: this.bot.id, stepId: step.id }, 'chatbot meeting step: no meeting to offer (deleted, none default, or not in the plan)');
          id = step.next;
          continue;
        }
        case 'handover':
          return this.handOver(step, 'flow');
        case 'close':
          await this.say(step.text);
          await setConversationStatus({ tx: this.tx, accountId: this.run.accountId, actorId: null, ids: [this.opts.conversationId], status: 'resolved' });
          this.status = 'completed';
          return;
      }
    }
    this.status = 'completed';
  }

  async handOver(step: Extract<ChatbotStep, { type: 'handover' }> | null, reason: 'flow' | 'human') {
    await this.say(step?.text ?? HANDOVER_ON_REQUEST);
    if (step && (step.teamId || step.userId)) {
      try {
        await assignConversations({
          tx: this.tx,
          accountId: this.run.accountId,
          actorId: null,
          ids: [this.opts.conversationId],
          ...(step.teamId ? { teamId: step.teamId } : {}),
          ...(step.userId ? { assigneeId: step.userId } : {}),
        });
      } catch (err) {
        // A team or agent removed since the flow was saved: the conversation stays with the inbox, unassigned.
        if (!(err instanceof InvalidReferenceError)) throw err;
      }
    }
    this.status = 'handed_over';
    this.run.endReason = reason;
  }

  async result() {
    const done = this.status !== 'running';
    await this.tx
      .update(schema.chatbotRuns)
      .set({
        status: this.status,
        waitingStepId: this.waiting?.stepId ?? null,
        waitingMessageId: this.waiting?.messageId ?? null,
        lastAnswer: this.run.lastAnswer,
        ...(done ? { endedAt: new Date(), endReason: this.run.endReason ?? 'ended' } : {}),
      })
      .where(and(eq(schema.chatbotRuns.accountId, this.run.accountId), eq(schema.chatbotRuns.id, this.run.id)));
    // The question the run now waits on shows its buttons (as listVisitorMessages' pendingChoices does).
    const waitingOn = this.status === 'running' && this.waiting ? this.step(this.waiting.stepId) : undefined;
    const messages =
      waitingOn?.type === 'question' ? this.messages.map((m) => (m.id === this.waiting!.messageId ? { ...m, buttons: waitingOn.choices.map((c) => c.label) } : m)) : this.messages;
    return { status: this.status, said: this.said, messages };
  }
}

/** Whether any enabled bot answers in this inbox (the widget then shows the chat even while the team is away). */
export async function inboxHasBot(opts: { accountId: number; inboxId: number }) {
  const [row] = await getDb()
    .select({ id: schema.chatbots.id })
    .from(schema.chatbots)
    .where(and(eq(schema.chatbots.accountId, opts.accountId), eq(schema.chatbots.enabled, true), sql`${opts.inboxId} = any(${schema.chatbots.inboxIds})`))
    .limit(1);
  return Boolean(row);
}

/**
 * The chatbot's answer, in the visitor's request right after their message was committed: its messages go out on
 * the widget socket as they commit. A failing bot never loses the visitor's message (it is logged instead).
 */
export async function botTurn(request: Request, opts: { visitor: WidgetVisitor; conversationId: number; text: string; pageUrl?: string }) {
  try {
    const turn = await runChatbotTurn({ ...opts, visitor: { ...opts.visitor, conversationId: opts.conversationId }, articleLink: (domain, path) => helpUrl(request, domain, path) });
    // Committed: straight to this visitor's widget sockets (ADR 124).
    const said = (turn as { messages?: VisitorMessage[] }).messages ?? [];
    pushToWidget({ accountId: opts.visitor.accountId, visitorId: opts.visitor.id, conversationId: opts.conversationId, messages: said });
    return turn;
  } catch (err) {
    getLogger().error({ err, conversationId: opts.conversationId }, 'chatbot turn failed');
    return null;
  }
}
