import { and, asc, count, desc, eq, inArray, isNotNull, isNull, ne, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx, type Tx } from '../../../db/client';
import { emitEvent } from '../events/events.server';
import { assignConversations, type Conversation } from '../inbox/conversations.server';
import { onlineSql } from './presence.server';
import { chooseAgent, choiceDependsOnConversation, type RoutingCandidate } from './routing-choice';
import { INBOX_TAKEN_MESSAGE, ruleNotOfferedMessage, rulesForInbox, type RoutingRuleInput } from './routing.schemas';

export type RoutingRule = typeof schema.routingRules.$inferSelect;

const t = schema.routingRules;
export const ROUTING_PAGE_SIZE = 50;
/** How many waiting conversations (oldest first) one hand-out looks at in an inbox. */
const HAND_OUT_BATCH = 100;
/** Open = open or pending. They count against the limit and are the ones waiting for an agent. */
const OPEN_STATUSES = ['open', 'pending'] as const;

/** Input the form cannot judge alone (an inbox, team or user of another account, a rule the inbox does not offer). */
export class RoutingInputError extends Error {
  constructor(message: string, readonly field: 'inboxId' | 'rule' | 'teamId' | 'subrules') {
    super(message);
  }
}

const actor = (actorId: number | null) => (actorId ? ({ type: 'user', id: actorId } as const) : ({ type: 'system' } as const));

// ---------------------------------------------------------------------------------------------------------
// Reading and writing rules (Settings → Automations → Routing)

export async function listRoutingRules(opts: { accountId: number; page?: number; pageSize?: number }) {
  const pageSize = opts.pageSize ?? ROUTING_PAGE_SIZE;
  const page = Math.max(1, opts.page ?? 1);
  const db = getDb();
  const where = eq(t.accountId, opts.accountId);
  const [rows, [{ total }]] = await Promise.all([
    db
      .select({
        id: t.id,
        name: t.name,
        rule: t.rule,
        assignLimit: t.assignLimit,
        createdAt: t.createdAt,
        inboxName: schema.inboxes.name,
        channelType: schema.inboxes.channelType,
      })
      .from(t)
      .innerJoin(schema.inboxes, and(eq(schema.inboxes.id, t.inboxId), eq(schema.inboxes.accountId, opts.accountId)))
      .where(where)
      .orderBy(sql`lower(${t.name})`, asc(t.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db.select({ total: count() }).from(t).where(where),
  ]);
  return { rows, total, page, pageSize };
}

export async function getRoutingRule(opts: { accountId: number; id: number }, db: DbOrTx = getDb()) {
  const [row] = await db
    .select()
    .from(t)
    .where(and(eq(t.accountId, opts.accountId), eq(t.id, opts.id)));
  return row;
}

/**
 * The agents routing hands conversations to: active users of the account, not refused access, whose role may
 * work conversations (manage_conversation).
 */
function agentConditions(accountId: number) {
  return and(
    eq(schema.users.accountId, accountId),
    eq(schema.users.status, 'active'),
    eq(schema.users.hasAccess, true),
    sql`'manage_conversation' = any(${schema.roles.permissions})`,
  );
}

export async function listRoutingAgents(opts: { accountId: number }, db: DbOrTx = getDb()) {
  return db
    .select({
      id: schema.users.id,
      firstName: schema.users.firstName,
      lastName: schema.users.lastName,
    })
    .from(schema.users)
    .innerJoin(schema.roles, and(eq(schema.roles.id, schema.users.roleId), eq(schema.roles.accountId, opts.accountId)))
    .where(agentConditions(opts.accountId))
    .orderBy(asc(schema.users.firstName), asc(schema.users.lastName), asc(schema.users.id));
}

/** What the form offers: inboxes (marked when another rule has them), teams, agents. */
export async function getRoutingFormOptions(opts: { accountId: number; ruleId?: number | null }) {
  const db = getDb();
  const [inboxes, teams, agents] = await Promise.all([
    db
      .select({
        id: schema.inboxes.id,
        name: schema.inboxes.name,
        channelType: schema.inboxes.channelType,
        ruleId: t.id,
      })
      .from(schema.inboxes)
      .leftJoin(t, and(eq(t.inboxId, schema.inboxes.id), eq(t.accountId, opts.accountId)))
      .where(eq(schema.inboxes.accountId, opts.accountId))
      .orderBy(asc(schema.inboxes.name)),
    db
      .select({ id: schema.teams.id, name: schema.teams.name })
      .from(schema.teams)
      .where(eq(schema.teams.accountId, opts.accountId))
      .orderBy(sql`lower(${schema.teams.name})`, asc(schema.teams.id)),
    listRoutingAgents(opts, db),
  ]);
  return {
    inboxes: inboxes.map((i) => ({
      id: i.id,
      name: i.name,
      channelType: i.channelType,
      taken: i.ruleId !== null && i.ruleId !== (opts.ruleId ?? null),
    })),
    teams,
    agents,
  };
}

async function checkInput(tx: Tx, accountId: number, input: RoutingRuleInput, exceptId?: number) {
  const [inbox] = await tx
    .select({ id: schema.inboxes.id, channelType: schema.inboxes.channelType })
    .from(schema.inboxes)
    .where(and(eq(schema.inboxes.accountId, accountId), eq(schema.inboxes.id, input.inboxId)));
  if (!inbox) throw new RoutingInputError('Choose an inbox of this account', 'inboxId');
  if (!rulesForInbox(inbox.channelType).includes(input.rule)) throw new RoutingInputError(ruleNotOfferedMessage(input.rule), 'rule');
  const [taken] = await tx
    .select({ id: t.id })
    .from(t)
    .where(and(eq(t.accountId, accountId), eq(t.inboxId, inbox.id), exceptId ? ne(t.id, exceptId) : undefined));
  if (taken) throw new RoutingInputError(INBOX_TAKEN_MESSAGE, 'inboxId');
  if (input.teamId !== null) {
    const [team] = await tx
      .select({ id: schema.teams.id })
      .from(schema.teams)
      .where(and(eq(schema.teams.accountId, accountId), eq(schema.teams.id, input.teamId)));
    if (!team) throw new RoutingInputError('Choose a team of this account', 'teamId');
  }
  const userIds = [...new Set(input.subrules.map((s) => s.userId))];
  if (userIds.length > 0) {
    const found = await tx
      .select({ id: schema.users.id })
      .from(schema.users)
      .innerJoin(schema.roles, and(eq(schema.roles.id, schema.users.roleId), eq(schema.roles.accountId, accountId)))
      .where(and(agentConditions(accountId), inArray(schema.users.id, userIds)));
    if (found.length !== userIds.length) throw new RoutingInputError('Choose a user of this account', 'subrules');
  }
}

function values(input: RoutingRuleInput) {
  return {
    name: input.name.trim(),
    inboxId: input.inboxId,
    rule: input.rule,
    assignLimit: input.assignLimit,
    teamId: input.teamId,
    subrules: input.subrules,
  };
}

/** One rule per inbox: the unique index answers a race the check above cannot see. */
async function uniqueInbox<T>(run: () => Promise<T>) {
  try {
    return await run();
  } catch (err) {
    if ((err as { cause?: { code?: string } }).cause?.code === '23505') throw new RoutingInputError(INBOX_TAKEN_MESSAGE, 'inboxId');
    throw err;
  }
}

export async function createRoutingRule(opts: { accountId: number; actorId: number | null } & RoutingRuleInput) {
  return uniqueInbox(() =>
    getDb().transaction(async (tx) => {
      await checkInput(tx, opts.accountId, opts);
      const [row] = await tx
        .insert(t)
        .values({ accountId: opts.accountId, ...values(opts) })
        .returning();
      // The engine hands out the inbox's waiting conversations when it sees this event.
      await emitEvent(tx, {
        accountId: opts.accountId,
        type: 'routing_rule_created',
        subjectType: 'routing_rule',
        subjectId: row.id,
        payload: {
          name: row.name,
          inboxId: row.inboxId,
          rule: row.rule,
          assignLimit: row.assignLimit,
        },
        actor: actor(opts.actorId),
      });
      return row;
    }),
  );
}

/** Returns the updated row, or undefined when the account has no such rule. */
export async function updateRoutingRule(
  opts: {
    accountId: number;
    actorId: number | null;
    id: number;
  } & RoutingRuleInput,
) {
  return uniqueInbox(() =>
    getDb().transaction(async (tx) => {
      const [before] = await tx
        .select()
        .from(t)
        .where(and(eq(t.accountId, opts.accountId), eq(t.id, opts.id)))
        .for('update');
      if (!before) return undefined;
      await checkInput(tx, opts.accountId, opts, before.id);
      const [row] = await tx
        .update(t)
        .set({ ...values(opts), updatedAt: new Date() })
        .where(and(eq(t.accountId, opts.accountId), eq(t.id, before.id)))
        .returning();
      const changed = (['name', 'inboxId', 'rule', 'assignLimit', 'teamId', 'subrules'] as const).filter(
        (k) => JSON.stringify(before[k]) !== JSON.stringify(row[k]),
      );
      await emitEvent(tx, {
        accountId: opts.accountId,
        type: 'routing_rule_updated',
        subjectType: 'routing_rule',
        subjectId: row.id,
        payload: { changed, inboxId: row.inboxId, rule: row.rule },
        actor: actor(opts.actorId),
      });
      return row;
    }),
  );
}

export async function deleteRoutingRule(opts: { accountId: number; actorId: number | null; id: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .delete(t)
      .where(and(eq(t.accountId, opts.accountId), eq(t.id, opts.id)))
      .returning();
    if (!row) return undefined;
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'routing_rule_deleted',
      subjectType: 'routing_rule',
      subjectId: row.id,
      payload: { name: row.name, inboxId: row.inboxId, rule: row.rule },
      actor: actor(opts.actorId),
    });
    return row;
  });
}

// ---------------------------------------------------------------------------------------------------------
// Routing conversations (the engine's routing handler calls these)

export type RoutedAssignment = { conversationId: number; userId: number };

/** The rule of an inbox, locked: two engine workers routing in one inbox take turns, so limits and the cursor hold. */
async function lockRuleOfInbox(tx: Tx, accountId: number, inboxId: number) {
  const [rule] = await tx
    .select()
    .from(t)
    .where(and(eq(t.accountId, accountId), eq(t.inboxId, inboxId)))
    .for('update');
  return rule;
}

/** The account's agents with their presence and their open conversations in the rule's inbox. */
async function loadCandidates(tx: Tx, accountId: number, inboxId: number): Promise<RoutingCandidate[]> {
  const p = schema.agentPresence;
  const rows = await tx
    .select({
      userId: schema.users.id,
      online: sql<boolean>`coalesce(${onlineSql}, false)`,
      openCount: sql<number>`(select count(*)::int from ${schema.conversations} c
        where c.account_id = ${accountId} and c.inbox_id = ${inboxId} and c.assignee_id = ${schema.users.id}
          and c.status in ('open', 'pending') and c.deleted_at is null)`,
    })
    .from(schema.users)
    .innerJoin(schema.roles, and(eq(schema.roles.id, schema.users.roleId), eq(schema.roles.accountId, accountId)))
    .leftJoin(p, and(eq(p.userId, schema.users.id), eq(p.accountId, accountId)))
    .where(agentConditions(accountId));
  return rows.map((r) => ({
    userId: r.userId,
    online: Boolean(r.online),
    openCount: Number(r.openCount),
  }));
}

async function teamMemberIds(tx: Tx, accountId: number, teamId: number | null) {
  if (teamId === null) return [];
  const rows = await tx
    .select({ userId: schema.teamMembers.userId })
    .from(schema.teamMembers)
    .innerJoin(schema.teams, and(eq(schema.teams.id, schema.teamMembers.teamId), eq(schema.teams.accountId, accountId)))
    .where(eq(schema.teamMembers.teamId, teamId));
  return rows.map((r) => r.userId);
}

/** last_agent_assigned: who had the contact's most recent other conversation that had an assignee. */
async function lastAgentOf(tx: Tx, accountId: number, conversation: Conversation) {
  if (!conversation.contactId) return null;
  const c = schema.conversations;
  const [row] = await tx
    .select({ assigneeId: c.assigneeId })
    .from(c)
    .where(and(eq(c.accountId, accountId), eq(c.contactId, conversation.contactId), ne(c.id, conversation.id), isNotNull(c.assigneeId), isNull(c.deletedAt)))
    .orderBy(desc(c.createdAt), desc(c.id))
    .limit(1);
  return row?.assigneeId ?? null;
}

/** url: the page the contact was last seen on by the messenger (page_views). */
async function pageUrlOf(tx: Tx, accountId: number, conversation: Conversation) {
  if (!conversation.contactId) return null;
  const v = schema.pageViews;
  const [row] = await tx
    .select({ url: v.url })
    .from(v)
    .where(and(eq(v.accountId, accountId), eq(v.contactId, conversation.contactId)))
    .orderBy(desc(v.lastSeenAt), desc(v.id))
    .limit(1);
  return row?.url ?? null;
}

/** Gives each conversation (locked, oldest first) the agent its rule picks; stops when nobody has room. */
async function routeLocked(
  tx: Tx,
  opts: {
    accountId: number;
    rule: RoutingRule;
    conversations: Conversation[];
    eventId: number;
  },
) {
  const { accountId, rule } = opts;
  if (opts.conversations.length === 0) return [];
  const candidates = await loadCandidates(tx, accountId, rule.inboxId);
  const members = rule.rule === 'team' ? await teamMemberIds(tx, accountId, rule.teamId) : [];
  let cursor = rule.lastAssignedUserId;
  const assigned: RoutedAssignment[] = [];
  for (const conversation of opts.conversations) {
    const choice = chooseAgent({
      rule: rule.rule,
      assignLimit: rule.assignLimit,
      candidates,
      cursor,
      teamMemberIds: members,
      lastAgentId: rule.rule === 'last_agent_assigned' ? await lastAgentOf(tx, accountId, conversation) : null,
      pageUrl: rule.rule === 'url' ? await pageUrlOf(tx, accountId, conversation) : null,
      subrules: rule.subrules,
    });
    if (!choice) {
      if (choiceDependsOnConversation(rule.rule)) continue;
      break;
    }
    // The same path as a person's assignment: system line, conversation_assigned, live update.
    await assignConversations({
      accountId,
      actorId: null,
      ids: [conversation.id],
      assigneeId: choice.userId,
      tx,
      cause: { eventId: opts.eventId },
    });
    const candidate = candidates.find((c) => c.userId === choice.userId);
    if (candidate) candidate.openCount += 1;
    cursor = choice.cursor;
    assigned.push({ conversationId: conversation.id, userId: choice.userId });
  }
  if (cursor !== rule.lastAssignedUserId) {
    await tx
      .update(t)
      .set({ lastAssignedUserId: cursor })
      .where(and(eq(t.accountId, accountId), eq(t.id, rule.id)));
  }
  return assigned;
}

const waitingConditions = (accountId: number, inboxId: number) =>
  and(
    eq(schema.conversations.accountId, accountId),
    eq(schema.conversations.inboxId, inboxId),
    isNull(schema.conversations.assigneeId),
    inArray(schema.conversations.status, [...OPEN_STATUSES]),
    isNull(schema.conversations.deletedAt),
  );

/** The inbox a conversation is in (null: not the account's). */
export async function getConversationInbox(opts: { accountId: number; conversationId: number }) {
  const [row] = await getDb()
    .select({ inboxId: schema.conversations.inboxId })
    .from(schema.conversations)
    .where(and(eq(schema.conversations.accountId, opts.accountId), eq(schema.conversations.id, opts.conversationId)));
  return row?.inboxId ?? null;
}

/** conversation_created: if the conversation is still unassigned and its inbox has a rule, the rule's agent gets it. */
export async function routeConversation(opts: { accountId: number; conversationId: number; eventId: number }) {
  const inboxId = await getConversationInbox(opts);
  if (inboxId === null) return [];
  return getDb().transaction(async (tx) => {
    const rule = await lockRuleOfInbox(tx, opts.accountId, inboxId);
    if (!rule) return [];
    // Read again under the rule's lock: a workflow or a person may have assigned or moved it meanwhile.
    const conversations = await tx
      .select()
      .from(schema.conversations)
      .where(and(waitingConditions(opts.accountId, rule.inboxId), eq(schema.conversations.id, opts.conversationId)))
      .for('update', { skipLocked: true });
    return routeLocked(tx, {
      accountId: opts.accountId,
      rule,
      conversations,
      eventId: opts.eventId,
    });
  });
}

/**
 * An agent came online or has room again: the waiting (unassigned, open or pending) conversations of the inboxes
 * are handed out, oldest first, as long as agents have room. No inboxIds: every inbox of the account with a rule.
 */
export async function handOutWaitingConversations(opts: { accountId: number; inboxIds?: number[]; eventId: number }) {
  const rules = await getDb()
    .select({ inboxId: t.inboxId })
    .from(t)
    .where(and(eq(t.accountId, opts.accountId), opts.inboxIds ? inArray(t.inboxId, opts.inboxIds.length ? opts.inboxIds : [-1]) : undefined))
    .orderBy(asc(t.id));
  const assigned: RoutedAssignment[] = [];
  for (const { inboxId } of rules) {
    const routed = await getDb().transaction(async (tx) => {
      const rule = await lockRuleOfInbox(tx, opts.accountId, inboxId);
      if (!rule) return [];
      const conversations = await tx
        .select()
        .from(schema.conversations)
        .where(waitingConditions(opts.accountId, inboxId))
        .orderBy(asc(schema.conversations.createdAt), asc(schema.conversations.id))
        .limit(HAND_OUT_BATCH)
        .for('update', { skipLocked: true });
      return routeLocked(tx, {
        accountId: opts.accountId,
        rule,
        conversations,
        eventId: opts.eventId,
      });
    });
    assigned.push(...routed);
  }
  return assigned;
}
