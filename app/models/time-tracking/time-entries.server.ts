import { and, desc, eq, gte, isNotNull, isNull, lt, sql, type SQL } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import { csvStream } from '../../utils/csv-stream.server';
import { patchAccountSettings } from '../accounts/accounts.server';
import { emitEvent, withTx } from '../events/events.server';
import { isUniqueViolation } from '../productivity/shared.server';
import type { TimeReportFilters } from './schemas';

const t = schema.timeEntries;
const conv = schema.conversations;

export class TimeEntryError extends Error {}

/** Seconds of a running timer so far, or of a finished entry. */
const secondsOf = sql<number>`coalesce(${t.durationSeconds}, greatest(0, extract(epoch from (now() - ${t.startedAt})))::int)`;

async function conversationOf(tx: Tx, accountId: number, conversationId: number) {
  const [c] = await tx
    .select({ id: conv.id, contactId: conv.contactId })
    .from(conv)
    .where(and(eq(conv.accountId, accountId), eq(conv.id, conversationId), isNull(conv.deletedAt)));
  return c;
}

function record(tx: Tx, opts: { accountId: number; actorId: number | null; type: 'time_entry_created' | 'time_entry_updated' | 'time_entry_deleted'; entry: typeof t.$inferSelect; payload?: Record<string, unknown> }) {
  return emitEvent(tx, {
    accountId: opts.accountId,
    type: opts.type,
    subjectType: 'time_entry',
    subjectId: opts.entry.id,
    payload: { conversationId: opts.entry.conversationId, userId: opts.entry.userId, durationSeconds: opts.entry.durationSeconds, billable: opts.entry.billable, ...opts.payload },
    actor: opts.actorId ? { type: 'user', id: opts.actorId } : { type: 'system' },
  });
}

/** Starts the agent's timer on a conversation; a second start while one runs is refused. */
export async function startTimer(opts: { accountId: number; userId: number; conversationId: number }) {
  try {
    return await getDb().transaction(async (tx) => {
      if (!(await conversationOf(tx, opts.accountId, opts.conversationId))) throw new TimeEntryError('No such conversation');
      const [entry] = await tx
        .insert(t)
        .values({ accountId: opts.accountId, conversationId: opts.conversationId, userId: opts.userId, startedAt: new Date() })
        .returning();
      await record(tx, { accountId: opts.accountId, actorId: opts.userId, type: 'time_entry_created', entry, payload: { timer: 'started' } });
      return entry;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new TimeEntryError('Your timer is already running on this conversation.');
    throw err;
  }
}

/** Stops the agent's running timer on the conversation; returns the finished entry, or undefined when none ran. */
export async function stopTimer(opts: { accountId: number; userId: number; conversationId: number; tx?: Tx }) {
  return withTx(opts.tx, async (tx) => {
    const [entry] = await tx
      .update(t)
      .set({ durationSeconds: sql`least(${24 * 3600}, greatest(0, extract(epoch from (now() - ${t.startedAt})))::int)`, updatedAt: new Date() })
      .where(and(eq(t.accountId, opts.accountId), eq(t.userId, opts.userId), eq(t.conversationId, opts.conversationId), isNull(t.durationSeconds)))
      .returning();
    if (entry) await record(tx, { accountId: opts.accountId, actorId: opts.userId, type: 'time_entry_updated', entry, payload: { timer: 'stopped' } });
    return entry;
  });
}

/** A manual entry: minutes worked, a note, billable, on a given day (today when absent). */
export async function logTime(opts: { accountId: number; userId: number; conversationId: number; minutes: number; note: string; billable: boolean; workedOn?: string }) {
  return getDb().transaction(async (tx) => {
    if (!(await conversationOf(tx, opts.accountId, opts.conversationId))) throw new TimeEntryError('No such conversation');
    const startedAt = opts.workedOn ? new Date(`${opts.workedOn}T12:00:00Z`) : new Date(Date.now() - opts.minutes * 60_000);
    const [entry] = await tx
      .insert(t)
      .values({ accountId: opts.accountId, conversationId: opts.conversationId, userId: opts.userId, startedAt, durationSeconds: opts.minutes * 60, note: opts.note, billable: opts.billable })
      .returning();
    await record(tx, { accountId: opts.accountId, actorId: opts.userId, type: 'time_entry_created', entry });
    return entry;
  });
}

/** Changes one of the agent's own finished entries; undefined when it is not theirs (or not this account's). */
export async function updateTimeEntry(opts: { accountId: number; userId: number; id: number; minutes: number; note: string; billable: boolean }) {
  return getDb().transaction(async (tx) => {
    const [before] = await tx
      .select()
      .from(t)
      .where(and(eq(t.accountId, opts.accountId), eq(t.id, opts.id), eq(t.userId, opts.userId), isNotNull(t.durationSeconds)))
      .for('update');
    if (!before) return undefined;
    const [entry] = await tx
      .update(t)
      .set({ durationSeconds: opts.minutes * 60, note: opts.note, billable: opts.billable, updatedAt: new Date() })
      .where(and(eq(t.accountId, opts.accountId), eq(t.id, before.id)))
      .returning();
    await record(tx, {
      accountId: opts.accountId,
      actorId: opts.userId,
      type: 'time_entry_updated',
      entry,
      payload: { before: { durationSeconds: before.durationSeconds, note: before.note, billable: before.billable }, after: { durationSeconds: entry.durationSeconds, note: entry.note, billable: entry.billable } },
    });
    return entry;
  });
}

/** Deletes one of the agent's own entries; false when it is not theirs. */
export async function deleteTimeEntry(opts: { accountId: number; userId: number; id: number }) {
  return getDb().transaction(async (tx) => {
    const [entry] = await tx
      .delete(t)
      .where(and(eq(t.accountId, opts.accountId), eq(t.id, opts.id), eq(t.userId, opts.userId)))
      .returning();
    if (!entry) return false;
    await record(tx, { accountId: opts.accountId, actorId: opts.userId, type: 'time_entry_deleted', entry });
    return true;
  });
}

/**
 * Called in the transaction that resolves a conversation: when the account asks for it, every timer running on the
 * conversation stops there (ADR 071).
 */
export async function stopTimersOnResolve(tx: Tx, opts: { accountId: number; conversationId: number }) {
  const [account] = await tx.select({ settings: schema.accounts.settings }).from(schema.accounts).where(eq(schema.accounts.id, opts.accountId));
  if (!account?.settings.stopTimersOnResolve) return [];
  const running = await tx
    .select({ userId: t.userId })
    .from(t)
    .where(and(eq(t.accountId, opts.accountId), eq(t.conversationId, opts.conversationId), isNull(t.durationSeconds)));
  const stopped = [];
  for (const r of running) stopped.push(await stopTimer({ accountId: opts.accountId, userId: r.userId, conversationId: opts.conversationId, tx }));
  return stopped;
}

export function setStopTimersOnResolve(opts: { accountId: number; actorId: number; value: boolean }) {
  return patchAccountSettings({ accountId: opts.accountId, userId: opts.actorId, patch: { stopTimersOnResolve: opts.value }, defaults: { stopTimersOnResolve: false } });
}

const agentName = sql<string>`coalesce(nullif(trim(${schema.users.firstName} || ' ' || ${schema.users.lastName}), ''), ${schema.users.email})`;

/** A conversation's entries (newest first), its total, billable total and per-agent totals, and the viewer's running timer. */
export async function conversationTime(opts: { accountId: number; conversationId: number; userId: number }) {
  const db = getDb();
  const where = and(eq(t.accountId, opts.accountId), eq(t.conversationId, opts.conversationId));
  const [entries, perAgent] = await Promise.all([
    db
      .select({ id: t.id, userId: t.userId, agent: agentName, startedAt: t.startedAt, durationSeconds: t.durationSeconds, seconds: secondsOf, note: t.note, billable: t.billable })
      .from(t)
      .innerJoin(schema.users, and(eq(schema.users.id, t.userId), eq(schema.users.accountId, t.accountId)))
      .where(where)
      .orderBy(desc(t.startedAt), desc(t.id))
      .limit(200),
    db
      .select({ userId: t.userId, agent: agentName, seconds: sql<number>`sum(${secondsOf})::int`, billableSeconds: sql<number>`coalesce(sum(${secondsOf}) filter (where ${t.billable}), 0)::int` })
      .from(t)
      .innerJoin(schema.users, and(eq(schema.users.id, t.userId), eq(schema.users.accountId, t.accountId)))
      .where(where)
      .groupBy(t.userId, schema.users.firstName, schema.users.lastName, schema.users.email)
      .orderBy(desc(sql`sum(${secondsOf})`)),
  ]);
  const running = entries.find((e) => e.userId === opts.userId && e.durationSeconds === null);
  return {
    entries,
    perAgent,
    totalSeconds: perAgent.reduce((n, a) => n + a.seconds, 0),
    billableSeconds: perAgent.reduce((n, a) => n + a.billableSeconds, 0),
    running: running ? { id: running.id, startedAt: running.startedAt } : null,
  };
}

/** Total logged time over a contact's or a company's conversations. */
export async function timeTotals(opts: { accountId: number; contactId?: number; companyId?: number }) {
  const filter: SQL[] = [eq(t.accountId, opts.accountId)];
  if (opts.contactId) filter.push(eq(conv.contactId, opts.contactId));
  if (opts.companyId) filter.push(sql`${conv.contactId} in (select id from contacts where account_id = ${opts.accountId} and company_id = ${opts.companyId})`);
  const [row] = await getDb()
    .select({ seconds: sql<number>`coalesce(sum(${secondsOf}), 0)::int`, billableSeconds: sql<number>`coalesce(sum(${secondsOf}) filter (where ${t.billable}), 0)::int`, entries: sql<number>`count(*)::int` })
    .from(t)
    .innerJoin(conv, and(eq(conv.id, t.conversationId), eq(conv.accountId, t.accountId)))
    .where(and(...filter));
  return row;
}


function reportWhere(accountId: number, f: TimeReportFilters) {
  const parts: SQL[] = [eq(t.accountId, accountId)];
  if (f.from) parts.push(gte(t.startedAt, new Date(`${f.from}T00:00:00Z`)));
  if (f.to) parts.push(lt(t.startedAt, new Date(Date.parse(`${f.to}T00:00:00Z`) + 86_400_000)));
  if (f.userId) parts.push(eq(t.userId, f.userId));
  return and(...parts)!;
}

/** The account's time by agent, by contact and by company, for the report page. */
export async function timeReport(opts: { accountId: number; filters: TimeReportFilters }) {
  const db = getDb();
  const w = reportWhere(opts.accountId, opts.filters);
  const joinConv = and(eq(conv.id, t.conversationId), eq(conv.accountId, t.accountId));
  const sums = { seconds: sql<number>`sum(${secondsOf})::int`, billableSeconds: sql<number>`coalesce(sum(${secondsOf}) filter (where ${t.billable}), 0)::int` };
  const [byAgent, byContact, byCompany] = await Promise.all([
    db
      .select({ id: t.userId, name: agentName, ...sums })
      .from(t)
      .innerJoin(schema.users, and(eq(schema.users.id, t.userId), eq(schema.users.accountId, t.accountId)))
      .where(w)
      .groupBy(t.userId, schema.users.firstName, schema.users.lastName, schema.users.email)
      .orderBy(desc(sql`sum(${secondsOf})`))
      .limit(50),
    db
      .select({ id: schema.contacts.id, name: sql<string>`coalesce(nullif(trim(${schema.contacts.firstName} || ' ' || ${schema.contacts.lastName}), ''), ${schema.contacts.email}, 'Contact')`, ...sums })
      .from(t)
      .innerJoin(conv, joinConv)
      .innerJoin(schema.contacts, and(eq(schema.contacts.id, conv.contactId), eq(schema.contacts.accountId, t.accountId)))
      .where(w)
      .groupBy(schema.contacts.id)
      .orderBy(desc(sql`sum(${secondsOf})`))
      .limit(50),
    db
      .select({ id: schema.companies.id, name: schema.companies.name, ...sums })
      .from(t)
      .innerJoin(conv, joinConv)
      .innerJoin(schema.contacts, and(eq(schema.contacts.id, conv.contactId), eq(schema.contacts.accountId, t.accountId)))
      .innerJoin(schema.companies, and(eq(schema.companies.id, schema.contacts.companyId), eq(schema.companies.accountId, t.accountId)))
      .where(w)
      .groupBy(schema.companies.id)
      .orderBy(desc(sql`sum(${secondsOf})`))
      .limit(50),
  ]);
  return { byAgent, byContact, byCompany, totalSeconds: byAgent.reduce((n, a) => n + a.seconds, 0) };
}

/** Every entry that matches, as a streamed CSV. */
export function exportTimeCsv(opts: { accountId: number; filters: TimeReportFilters }) {
  const query = sql`select ${t.id} as id, ${t.startedAt} as started_at, ${t.conversationId} as conversation_id,
      coalesce(nullif(trim(u.first_name || ' ' || u.last_name), ''), u.email) as agent,
      coalesce(nullif(trim(ct.first_name || ' ' || ct.last_name), ''), ct.email) as contact, co.name as company,
      ${secondsOf} as seconds, ${t.billable} as billable, ${t.note} as note
    from ${t}
    join users u on u.id = ${t.userId} and u.account_id = ${t.accountId}
    join conversations c on c.id = ${t.conversationId} and c.account_id = ${t.accountId}
    left join contacts ct on ct.id = c.contact_id and ct.account_id = ${t.accountId}
    left join companies co on co.id = ct.company_id and co.account_id = ${t.accountId}
    where ${reportWhere(opts.accountId, opts.filters)}
    order by ${t.startedAt} desc, ${t.id} desc`;
  type Row = { id: number; started_at: Date | string; conversation_id: number; agent: string; contact: string | null; company: string | null; seconds: number; billable: boolean; note: string };
  return csvStream<Row>({
    query,
    header: ['Entry', 'Started (UTC)', 'Conversation', 'Agent', 'Contact', 'Company', 'Minutes', 'Billable', 'Note'],
    toRecord: (r) => [r.id, new Date(r.started_at).toISOString(), r.conversation_id, r.agent, r.contact ?? '', r.company ?? '', Math.round(Number(r.seconds) / 60), r.billable ? 'yes' : 'no', r.note],
  });
}
