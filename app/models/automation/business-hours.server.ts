import type { SubmissionResult } from '@conform-to/react';
import { and, asc, count, eq, sql } from 'drizzle-orm';
import { getDb, schema, type DbOrTx } from '../../../db/client';
import type { ChannelType } from '../../../db/schema/inbox';
import { parseWithZod } from '../../utils/conform.server';
import { emitEvent } from '../events/events.server';
import { getInbox, updateInbox } from '../inbox/inboxes.server';
import type { BusinessHoursRules } from './business-time';
import { InboxBusinessHoursSchema, type BusinessHoursInput } from './schemas';

export type BusinessHours = typeof schema.businessHours.$inferSelect;

const t = schema.businessHours;
export const BUSINESS_HOURS_PAGE_SIZE = 50;

const actor = (actorId: number | null) => (actorId ? ({ type: 'user', id: actorId } as const) : ({ type: 'system' } as const));

export async function listBusinessHours(opts: { accountId: number; page?: number; pageSize?: number }) {
  const pageSize = opts.pageSize ?? BUSINESS_HOURS_PAGE_SIZE;
  const page = Math.max(1, opts.page ?? 1);
  const db = getDb();
  const where = eq(t.accountId, opts.accountId);
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(t).where(where).orderBy(sql`lower(${t.name})`, asc(t.id)).limit(pageSize).offset((page - 1) * pageSize),
    db.select({ total: count() }).from(t).where(where),
  ]);
  return { rows, total, page, pageSize };
}

export async function getBusinessHours(opts: { accountId: number; id: number }, db: DbOrTx = getDb()) {
  const [row] = await db
    .select()
    .from(t)
    .where(and(eq(t.accountId, opts.accountId), eq(t.id, opts.id)));
  return row;
}

/** The business hours an inbox counts its SLA targets in, or null when it has none (around the clock). */
export async function getInboxBusinessHours(opts: { accountId: number; inboxId: number }, db: DbOrTx = getDb()): Promise<BusinessHoursRules | null> {
  const [row] = await db
    .select({ timezone: t.timezone, allDay: t.allDay, haveHolidays: t.haveHolidays, timings: t.timings, holidays: t.holidays })
    .from(schema.inboxes)
    .innerJoin(t, and(eq(t.id, schema.inboxes.businessHoursId), eq(t.accountId, opts.accountId)))
    .where(and(eq(schema.inboxes.accountId, opts.accountId), eq(schema.inboxes.id, opts.inboxId)));
  return row ?? null;
}

function values(input: BusinessHoursInput) {
  return {
    name: input.name.trim(),
    timezone: input.timezone,
    allDay: input.allDay,
    haveHolidays: input.haveHolidays,
    timings: input.timings,
    holidays: input.holidays,
  };
}

export async function createBusinessHours(opts: { accountId: number; actorId: number | null } & BusinessHoursInput) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .insert(t)
      .values({ accountId: opts.accountId, ...values(opts) })
      .returning();
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'business_hours_created',
      subjectType: 'business_hours',
      subjectId: row.id,
      payload: { name: row.name, timezone: row.timezone, allDay: row.allDay },
      actor: actor(opts.actorId),
    });
    return row;
  });
}

/** Returns the updated row, or undefined when the account has no such business hours. */
export async function updateBusinessHours(opts: { accountId: number; actorId: number | null; id: number } & BusinessHoursInput) {
  return getDb().transaction(async (tx) => {
    const before = await getBusinessHours(opts, tx);
    if (!before) return undefined;
    const [row] = await tx
      .update(t)
      .set({ ...values(opts), updatedAt: new Date() })
      .where(and(eq(t.accountId, opts.accountId), eq(t.id, before.id)))
      .returning();
    const changed = (['name', 'timezone', 'allDay', 'haveHolidays', 'timings', 'holidays'] as const).filter(
      (k) => JSON.stringify(before[k]) !== JSON.stringify(row[k]),
    );
    // Timers computed from these hours (SLA due times) listen for this event to be recomputed.
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'business_hours_updated',
      subjectType: 'business_hours',
      subjectId: row.id,
      payload: { changed },
      actor: actor(opts.actorId),
    });
    return row;
  });
}

/** Inboxes that used these hours fall back to around the clock (the foreign key sets them to null). */
export async function deleteBusinessHours(opts: { accountId: number; actorId: number | null; id: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .delete(t)
      .where(and(eq(t.accountId, opts.accountId), eq(t.id, opts.id)))
      .returning();
    if (!row) return undefined;
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'business_hours_deleted',
      subjectType: 'business_hours',
      subjectId: row.id,
      payload: { name: row.name },
      actor: actor(opts.actorId),
    });
    return row;
  });
}

/**
 * Attaches business hours to any inbox of the account (or none: around the clock); the inbox's SLA due times
 * are counted in them from then on. 'not_found' for another account's inbox, 'invalid' for another's hours.
 */
export async function setInboxBusinessHours(opts: { accountId: number; actorId: number; inboxId: number; businessHoursId: number | null }) {
  if (opts.businessHoursId !== null && !(await getBusinessHours({ accountId: opts.accountId, id: opts.businessHoursId }))) return 'invalid' as const;
  const updated = await updateInbox({ accountId: opts.accountId, actorId: opts.actorId, id: opts.inboxId, changes: { businessHoursId: opts.businessHoursId } });
  return updated ? ('ok' as const) : ('not_found' as const);
}

export const INBOX_HOURS_INVALID = 'Choose business hours from the list';

/**
 * The `intent=hours` post of an inbox's settings page (email, SMS, Facebook, X): parses the form of
 * InboxBusinessHoursForm and saves it. 'missing' when the account has no such inbox of the page's channel (the
 * route answers 404), 'invalid' with the reply to show (400) for a bad value or hours that are not the account's.
 */
export async function submitInboxBusinessHours(opts: {
  accountId: number;
  actorId: number;
  inboxId: number;
  channelType: ChannelType;
  formData: FormData;
}): Promise<{ status: 'saved' } | { status: 'missing' } | { status: 'invalid'; reply: SubmissionResult<string[]> }> {
  const inbox = await getInbox({ accountId: opts.accountId, id: opts.inboxId });
  if (!inbox || inbox.channelType !== opts.channelType) return { status: 'missing' };
  const submission = parseWithZod(opts.formData, { schema: InboxBusinessHoursSchema });
  if (submission.status !== 'success') return { status: 'invalid', reply: submission.reply() };
  const who = { accountId: opts.accountId, actorId: opts.actorId, inboxId: inbox.id };
  const result = await setInboxBusinessHours({ ...who, businessHoursId: submission.value.businessHoursId ?? null });
  if (result === 'not_found') return { status: 'missing' };
  if (result === 'invalid') return { status: 'invalid', reply: submission.reply({ fieldErrors: { businessHoursId: [INBOX_HOURS_INVALID] } }) };
  return { status: 'saved' };
}

/** The account's business hours as select options (for an inbox's settings). */
export async function businessHoursOptions(opts: { accountId: number }) {
  const { rows } = await listBusinessHours({ accountId: opts.accountId, pageSize: 500 });
  return rows.map((h) => ({ value: String(h.id), label: h.name }));
}
