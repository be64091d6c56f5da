import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { DEFAULT_CONDITIONS, MAX_CHOICES, type ChatbotConditions, type ChatbotStep, type StepType } from './constants';
import { ChatbotFlowError, checkFlow } from './flow.server';

/**
 * Chatbots of an account (ADR 075): the builder's reads and writes and each bot's figures. Every query names the
 * account in its WHERE; the flow is checked whole on every save (checkFlow), so a bad edit changes nothing.
 */

export type Chatbot = typeof schema.chatbots.$inferSelect;

export async function listChatbots(opts: { accountId: number }) {
  const bots = await getDb()
    .select()
    .from(schema.chatbots)
    .where(eq(schema.chatbots.accountId, opts.accountId))
    .orderBy(desc(schema.chatbots.priority), asc(schema.chatbots.id));
  const figures = await chatbotFigures({ accountId: opts.accountId, botIds: bots.map((b) => b.id) });
  return bots.map((b) => ({ ...b, figures: figures.get(b.id) ?? EMPTY_FIGURES }));
}

export async function getChatbot(opts: { accountId: number; id: number }) {
  const [bot] = await getDb()
    .select()
    .from(schema.chatbots)
    .where(and(eq(schema.chatbots.accountId, opts.accountId), eq(schema.chatbots.id, opts.id)));
  return bot;
}

export const EMPTY_FIGURES = { started: 0, completed: 0, handedOver: 0, resolvedWithoutAgent: 0 };
export type ChatbotFigures = typeof EMPTY_FIGURES;

/**
 * Conversations started (a run began), completed (the flow reached its end or a close step), handed over (a
 * hand-over step, or the visitor asked for a person) and resolved without an agent (the conversation is resolved
 * and no agent ever wrote in it).
 */
export async function chatbotFigures(opts: { accountId: number; botIds: number[] }) {
  const out = new Map<number, ChatbotFigures>();
  if (opts.botIds.length === 0) return out;
  const r = schema.chatbotRuns;
  const rows = await getDb()
    .select({
      botId: r.botId,
      started: sql<number>`count(*)::int`,
      completed: sql<number>`count(*) filter (where ${r.status} = 'completed')::int`,
      handedOver: sql<number>`count(*) filter (where ${r.status} = 'handed_over')::int`,
      resolvedWithoutAgent: sql<number>`count(*) filter (where ${schema.conversations.status} = 'resolved' and not exists (
        select 1 from ${schema.messages} m where m.account_id = ${opts.accountId} and m.conversation_id = ${r.conversationId}
        and m.kind = 'outgoing' and m.sender_user_id is not null and m.deleted_at is null))::int`,
    })
    .from(r)
    .innerJoin(schema.conversations, and(eq(schema.conversations.id, r.conversationId), eq(schema.conversations.accountId, r.accountId)))
    .where(and(eq(r.accountId, opts.accountId), inArray(r.botId, opts.botIds)))
    .groupBy(r.botId);
  for (const row of rows) out.set(row.botId, { started: row.started, completed: row.completed, handedOver: row.handedOver, resolvedWithoutAgent: row.resolvedWithoutAgent });
  return out;
}

/** A new bot starts switched off with a greeting and a hand-over, so it is a working flow from the first save. */
export async function createChatbot(opts: { accountId: number; actorId: number | null; name: string }) {
  const steps: ChatbotStep[] = [
    { id: 's1', type: 'message', text: 'Hi! I am a bot and can help you get started.', next: 's2' },
    { id: 's2', type: 'handover', text: 'Let me find someone from the team for you.', teamId: null, userId: null },
  ];
  const [bot] = await getDb()
    .insert(schema.chatbots)
    .values({ accountId: opts.accountId, name: opts.name, createdById: opts.actorId, conditions: DEFAULT_CONDITIONS, steps })
    .returning();
  return bot;
}

export async function deleteChatbot(opts: { accountId: number; id: number }) {
  const rows = await getDb()
    .delete(schema.chatbots)
    .where(and(eq(schema.chatbots.accountId, opts.accountId), eq(schema.chatbots.id, opts.id)))
    .returning({ id: schema.chatbots.id });
  return rows.length > 0;
}

/** Web inboxes of the account a bot can be attached to. */
export async function listWebInboxOptions(opts: { accountId: number }) {
  return getDb()
    .select({ id: schema.inboxes.id, name: schema.inboxes.name })
    .from(schema.inboxes)
    .where(and(eq(schema.inboxes.accountId, opts.accountId), eq(schema.inboxes.channelType, 'web')))
    .orderBy(asc(schema.inboxes.name));
}

export async function updateChatbotSettings(opts: {
  accountId: number;
  id: number;
  name: string;
  enabled: boolean;
  inboxIds: number[];
  priority: number;
  conditions: ChatbotConditions;
}) {
  const own = new Set((await listWebInboxOptions({ accountId: opts.accountId })).map((i) => i.id));
  if (opts.inboxIds.some((i) => !own.has(i))) throw new ChatbotFlowError('Choose web inboxes of this account');
  const [bot] = await getDb()
    .update(schema.chatbots)
    .set({ name: opts.name, enabled: opts.enabled, inboxIds: [...new Set(opts.inboxIds)], priority: opts.priority, conditions: opts.conditions, updatedAt: new Date() })
    .where(and(eq(schema.chatbots.accountId, opts.accountId), eq(schema.chatbots.id, opts.id)))
    .returning();
  return bot;
}

/** Saves a whole flow after checking it; team and agent of each hand-over must be the account's own. */
export async function saveChatbotFlow(opts: { accountId: number; id: number; steps: unknown }) {
  const steps = checkFlow(opts.steps);
  const teamIds = steps.flatMap((s) => (s.type === 'handover' && s.teamId ? [s.teamId] : []));
  const userIds = steps.flatMap((s) => (s.type === 'handover' && s.userId ? [s.userId] : []));
  const db = getDb();
  if (teamIds.length) {
    const found = await db.select({ id: schema.teams.id }).from(schema.teams).where(and(eq(schema.teams.accountId, opts.accountId), inArray(schema.teams.id, teamIds)));
    if (found.length !== new Set(teamIds).size) throw new ChatbotFlowError('Choose a team of this account');
  }
  if (userIds.length) {
    const found = await db.select({ id: schema.users.id }).from(schema.users).where(and(eq(schema.users.accountId, opts.accountId), inArray(schema.users.id, userIds)));
    if (found.length !== new Set(userIds).size) throw new ChatbotFlowError('Choose a user of this account');
  }
  const meetingIds = steps.flatMap((s) => (s.type === 'meeting' && s.meetingId ? [s.meetingId] : []));
  if (meetingIds.length) {
    const found = await db
      .select({ id: schema.meetingTypes.id })
      .from(schema.meetingTypes)
      .where(and(eq(schema.meetingTypes.accountId, opts.accountId), inArray(schema.meetingTypes.id, meetingIds)));
    if (found.length !== new Set(meetingIds).size) throw new ChatbotFlowError('Choose a meeting of this account');
  }
  const [bot] = await db
    .update(schema.chatbots)
    .set({ steps, updatedAt: new Date() })
    .where(and(eq(schema.chatbots.accountId, opts.accountId), eq(schema.chatbots.id, opts.id)))
    .returning();
  return bot;
}

const DEFAULT_STEP: Record<StepType, (id: string) => ChatbotStep> = {
  message: (id) => ({ id, type: 'message', text: 'Thanks for reaching out!', next: null }),
  question: (id) => ({ id, type: 'question', text: 'What can we help you with?', choices: [{ label: 'Sales', next: null }, { label: 'Support', next: null }], next: null }),
  collect: (id) => ({ id, type: 'collect', text: 'What is your email address, so we can follow up?', field: 'email', next: null }),
  search: (id) => ({ id, type: 'search', text: 'Type your question and I will look for an article.', next: null }),
  branch: (id) => ({ id, type: 'branch', rules: [{ contains: 'price', next: null }], next: null }),
  hours: (id) => ({ id, type: 'hours', open: null, closed: null }),
  handover: (id) => ({ id, type: 'handover', text: 'Let me find someone from the team for you.', teamId: null, userId: null }),
  close: (id) => ({ id, type: 'close', text: 'Glad I could help. Have a nice day!' }),
  meeting: (id) => ({ id, type: 'meeting', text: 'Pick a time that suits you and we will talk:', meetingId: null, next: null }),
};

/** Appends a step with sensible defaults; the previous last step, if it ended the flow, now leads to it. */
export function withStepAdded(steps: ChatbotStep[], type: StepType) {
  const n = Math.max(0, ...steps.map((s) => Number(s.id.slice(1)))) + 1;
  const step = DEFAULT_STEP[type](`s${n}`);
  const last = steps.at(-1);
  const linked = steps.map((s) => (s === last && 'next' in s && s.next === null && s.type !== 'question' && s.type !== 'branch' ? { ...s, next: step.id } : s));
  return [...linked, step];
}

/** Removes a step; whatever went to it now ends the flow there. */
export function withStepRemoved(steps: ChatbotStep[], stepId: string) {
  const unlink = (t: string | null) => (t === stepId ? null : t);
  return steps
    .filter((s) => s.id !== stepId)
    .map((s) => {
      switch (s.type) {
        case 'question':
          return { ...s, next: unlink(s.next), choices: s.choices.map((c) => ({ ...c, next: unlink(c.next) })) };
        case 'branch':
          return { ...s, next: unlink(s.next), rules: s.rules.map((r) => ({ ...r, next: unlink(r.next) })) };
        case 'hours':
          return { ...s, open: unlink(s.open), closed: unlink(s.closed) };
        case 'handover':
        case 'close':
          return s;
        default:
          return { ...s, next: unlink(s.next) };
      }
    });
}

export function withStepMoved(steps: ChatbotStep[], stepId: string, by: -1 | 1) {
  const i = steps.findIndex((s) => s.id === stepId);
  const j = i + by;
  if (i < 0 || j < 0 || j >= steps.length) return steps;
  const copy = [...steps];
  [copy[i], copy[j]] = [copy[j], copy[i]];
  return copy;
}

/** One step's form values (flat, as the no-JS builder posts them) applied to the step. */
export function withStepEdited(steps: ChatbotStep[], values: Record<string, unknown>) {
  const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : '');
  const ref = (k: string) => str(k).trim() || null;
  return steps.map((s): unknown => {
    if (s.id !== values.stepId) return s;
    const choices = Array.from({ length: MAX_CHOICES }, (_, i) => ({ label: str(`choice${i}Label`).trim(), next: ref(`choice${i}Next`) })).filter((c) => c.label);
    switch (s.type) {
      case 'message':
      case 'search':
        return { ...s, text: str('text'), next: ref('next') };
      case 'collect':
        return { ...s, text: str('text'), field: values.field ?? s.field, next: ref('next') };
      case 'question':
        return { ...s, text: str('text'), choices, next: ref('next') };
      case 'branch':
        return { ...s, rules: choices.map((c) => ({ contains: c.label, next: c.next })), next: ref('next') };
      case 'hours':
        return { ...s, open: ref('open'), closed: ref('closed') };
      case 'handover':
        return { ...s, text: str('text'), teamId: (values.teamId as number | undefined) ?? null, userId: (values.userId as number | undefined) ?? null };
      case 'close':
        return { ...s, text: str('text') };
      case 'meeting':
        return { ...s, text: str('text'), meetingId: (values.meetingId as number | undefined) ?? null, next: ref('next') };
    }
  });
}
