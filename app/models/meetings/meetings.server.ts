import crypto from 'node:crypto';
import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import { emitEvent } from '../events/events.server';
import { FieldInputError } from '../productivity/shared.server';
import type { MeetingTypeInput } from './schemas';

const m = schema.meetingTypes;
const h = schema.meetingHosts;
const b = schema.meetingBookings;

export type MeetingType = typeof m.$inferSelect;

/** The account's meeting types with their confirmed booking counts (section 3: id, meetingName, totalBookings). */
export async function listMeetingTypes(opts: { accountId: number }) {
  return getDb()
    .select({
      id: m.id,
      meetingName: m.name,
      slug: m.slug,
      slotMinutes: m.slotMinutes,
      isDefault: m.isDefault,
      // Written out in full: drizzle leaves the outer column unqualified in a one-table select, which the subquery would rebind.
      totalBookings: sql<number>`(select count(*)::int from meeting_bookings mb where mb.account_id = ${opts.accountId} and mb.meeting_type_id = "meeting_types"."id" and mb.status = 'confirmed')`,
    })
    .from(m)
    .where(eq(m.accountId, opts.accountId))
    .orderBy(asc(m.name), asc(m.id));
}

export async function getMeetingType(opts: { accountId: number; id: number }) {
  const [row] = await getDb()
    .select()
    .from(m)
    .where(and(eq(m.accountId, opts.accountId), eq(m.id, opts.id)));
  if (!row) return undefined;
  const hosts = await getDb()
    .select({ id: schema.users.id, firstName: schema.users.firstName, lastName: schema.users.lastName, email: schema.users.email })
    .from(h)
    .innerJoin(schema.users, and(eq(schema.users.id, h.userId), eq(schema.users.accountId, h.accountId)))
    .where(and(eq(h.accountId, opts.accountId), eq(h.meetingTypeId, row.id)));
  return { ...row, hosts };
}

/** A meeting type by its public address, on the account's host only. */
export async function getMeetingTypeBySlug(opts: { accountId: number; slug: string }) {
  if (!/^[a-z0-9-]{1,80}$/.test(opts.slug)) return undefined;
  const [row] = await getDb()
    .select()
    .from(m)
    .where(and(eq(m.accountId, opts.accountId), eq(m.slug, opts.slug)));
  return row;
}

async function checkHosts(tx: Tx, accountId: number, hostIds: number[]) {
  const ids = [...new Set(hostIds)];
  const found = await tx
    .select({ id: schema.users.id })
    .from(schema.users)
    .where(and(eq(schema.users.accountId, accountId), inArray(schema.users.id, ids)));
  if (found.length !== ids.length) throw new FieldInputError('Choose hosts from your team', 'hostIds');
  return ids;
}

function values(input: MeetingTypeInput) {
  return {
    name: input.name,
    description: input.description,
    slotMinutes: input.slotMinutes,
    weekdays: input.weekdays,
    dayStart: input.dayStart,
    dayEnd: input.dayEnd,
    timezone: input.timezone,
    bookingWindowWeeks: input.bookingWindowWeeks,
    bufferMinutes: input.bufferMinutes,
    reminderMinutes: [...new Set(input.reminderMinutes)].sort((x, y) => x - y),
    location: input.location,
    videoLink: input.videoLink,
  };
}

function slugFor(name: string) {
  const base = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40);
  return `${base || 'meeting'}-${crypto.randomBytes(4).toString('hex')}`;
}

export async function createMeetingType(opts: { accountId: number; actorId: number; input: MeetingTypeInput }) {
  return getDb().transaction(async (tx) => {
    const hostIds = await checkHosts(tx, opts.accountId, opts.input.hostIds);
    const [{ n }] = await tx.select({ n: count() }).from(m).where(eq(m.accountId, opts.accountId));
    const [row] = await tx
      .insert(m)
      .values({ accountId: opts.accountId, slug: slugFor(opts.input.name), isDefault: n === 0, ...values(opts.input) })
      .returning();
    await tx.insert(h).values(hostIds.map((userId) => ({ accountId: opts.accountId, meetingTypeId: row.id, userId })));
    await emitEvent(tx, { accountId: opts.accountId, type: 'meeting_created', subjectType: 'meeting', subjectId: row.id, payload: { name: row.name, hostIds }, actor: { type: 'user', id: opts.actorId } });
    return row;
  });
}

export async function updateMeetingType(opts: { accountId: number; actorId: number; id: number; input: MeetingTypeInput }) {
  return getDb().transaction(async (tx) => {
    const [before] = await tx
      .select()
      .from(m)
      .where(and(eq(m.accountId, opts.accountId), eq(m.id, opts.id)))
      .for('update');
    if (!before) return undefined;
    const hostIds = await checkHosts(tx, opts.accountId, opts.input.hostIds);
    const next = values(opts.input);
    const [row] = await tx
      .update(m)
      .set({ ...next, updatedAt: new Date() })
      .where(and(eq(m.accountId, opts.accountId), eq(m.id, before.id)))
      .returning();
    const oldHosts = await tx.delete(h).where(and(eq(h.accountId, opts.accountId), eq(h.meetingTypeId, row.id))).returning({ userId: h.userId });
    await tx.insert(h).values(hostIds.map((userId) => ({ accountId: opts.accountId, meetingTypeId: row.id, userId })));
    const pick = (r: MeetingType) => Object.fromEntries(Object.keys(next).map((k) => [k, r[k as keyof MeetingType]]));
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'meeting_updated',
      subjectType: 'meeting',
      subjectId: row.id,
      payload: {
        before: { ...pick(before), hostIds: oldHosts.map((x) => x.userId).sort() },
        after: { ...pick(row), hostIds: [...hostIds].sort() },
      },
      actor: { type: 'user', id: opts.actorId },
    });
    return row;
  });
}

/** The default meeting is the one the messenger offers (setDefault); exactly one at a time. */
export async function setDefaultMeetingType(opts: { accountId: number; actorId: number; id: number }) {
  return getDb().transaction(async (tx) => {
    const [target] = await tx
      .select()
      .from(m)
      .where(and(eq(m.accountId, opts.accountId), eq(m.id, opts.id)))
      .for('update');
    if (!target) return false;
    await tx.update(m).set({ isDefault: false }).where(and(eq(m.accountId, opts.accountId), eq(m.isDefault, true)));
    await tx.update(m).set({ isDefault: true }).where(and(eq(m.accountId, opts.accountId), eq(m.id, target.id)));
    await emitEvent(tx, { accountId: opts.accountId, type: 'meeting_updated', subjectType: 'meeting', subjectId: target.id, payload: { before: { isDefault: target.isDefault }, after: { isDefault: true } }, actor: { type: 'user', id: opts.actorId } });
    return true;
  });
}

export async function deleteMeetingType(opts: { accountId: number; actorId: number; id: number }) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .delete(m)
      .where(and(eq(m.accountId, opts.accountId), eq(m.id, opts.id)))
      .returning();
    if (!row) return false;
    await emitEvent(tx, { accountId: opts.accountId, type: 'meeting_deleted', subjectType: 'meeting', subjectId: row.id, payload: { name: row.name }, actor: { type: 'user', id: opts.actorId } });
    return true;
  });
}

/** The hosts of a meeting type, for availability. */
export async function meetingHostIds(opts: { accountId: number; meetingTypeId: number }) {
  const rows = await getDb()
    .select({ userId: h.userId })
    .from(h)
    .where(and(eq(h.accountId, opts.accountId), eq(h.meetingTypeId, opts.meetingTypeId)))
    .orderBy(asc(h.userId));
  return rows.map((r) => r.userId);
}
