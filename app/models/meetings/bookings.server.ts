import crypto from 'node:crypto';
import ical, { ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import { and, desc, eq, gt, inArray, lt, ne, sql } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import { getConfig } from '../../utils/env.server';
import { enqueueInTx, QUEUES } from '../../utils/jobs.server';
import { getLogger } from '../../utils/logger.server';
import { accountLink } from '../../utils/tenant.server';
import { accountHasFeature } from '../accounts/accounts.server';
import { findOrCreateContact } from '../contacts/contacts.server';
import { emitEvent } from '../events/events.server';
import { addMessage } from '../inbox/messages.server';
import { sendEmail } from '../mail/mail.server';
import { calendarBusy, deleteBookingEvents, putBookingEvents, readEventRefs, type CalendarEvent } from './calendars.server';
import { weekdaysOf } from './constants';
import { meetingHostIds, type MeetingType } from './meetings.server';
import { computeSlots, windowEnd, type Slot, type Span } from './slots';

const b = schema.meetingBookings;
export type Booking = typeof b.$inferSelect;

export class SlotTakenError extends Error {
  constructor() {
    super('This time was just booked by someone else. Please choose another time.');
  }
}

export function rulesOf(meeting: MeetingType) {
  return {
    timezone: meeting.timezone,
    weekdays: weekdaysOf(meeting.weekdays),
    dayStart: meeting.dayStart,
    dayEnd: meeting.dayEnd,
    slotMinutes: meeting.slotMinutes,
    bufferMinutes: meeting.bufferMinutes,
    bookingWindowWeeks: meeting.bookingWindowWeeks,
  };
}

/** Confirmed bookings of these hosts (any meeting type) overlapping [from, to): they are busy then. */
async function bookedSpans(db: Tx | ReturnType<typeof getDb>, accountId: number, hostIds: number[], from: Date, to: Date, exceptBookingId?: number) {
  if (hostIds.length === 0) return new Map<number, Span[]>();
  const rows = await db
    .select({ hostUserId: b.hostUserId, startsAt: b.startsAt, endsAt: b.endsAt })
    .from(b)
    .where(
      and(
        eq(b.accountId, accountId),
        inArray(b.hostUserId, hostIds),
        eq(b.status, 'confirmed'),
        lt(b.startsAt, to),
        gt(b.endsAt, from),
        exceptBookingId === undefined ? undefined : ne(b.id, exceptBookingId),
      ),
    );
  const out = new Map<number, Span[]>();
  for (const r of rows) {
    const list = out.get(r.hostUserId) ?? [];
    list.push({ start: r.startsAt.getTime(), end: r.endsAt.getTime() });
    out.set(r.hostUserId, list);
  }
  return out;
}

/**
 * The slots a visitor may book now: the meeting's days and hours, minus each host's bookings and the busy times of
 * their connected calendars; a slot shows while at least one host is free.
 */
export async function availableSlots(opts: { accountId: number; meeting: MeetingType; now?: Date; fresh?: boolean; reschedule?: Booking }): Promise<Slot[]> {
  const now = opts.now ?? new Date();
  const hostIds = await meetingHostIds({ accountId: opts.accountId, meetingTypeId: opts.meeting.id });
  const rules = rulesOf(opts.meeting);
  const to = new Date(windowEnd(now, rules) + 86_400_000);
  // Rescheduling: the booking's own time does not count against it, in Parley nor in its host's calendar.
  const own = opts.reschedule;
  const [booked, busy] = await Promise.all([bookedSpans(getDb(), opts.accountId, hostIds, now, to, own?.id), calendarBusy({ accountId: opts.accountId, userIds: hostIds, from: now, to, fresh: opts.fresh })]);
  const notOwn = (id: number, spans: Span[]) => (own && id === own.hostUserId ? spans.filter((x) => !(x.start === own.startsAt.getTime() && x.end === own.endsAt.getTime())) : spans);
  return computeSlots({
    now,
    rules,
    hosts: hostIds.map((id) => ({ id, busy: [...(booked.get(id) ?? []), ...notOwn(id, busy.get(id) ?? [])] })),
  });
}

/** Links in emails: the booking id and an HMAC of it, so nobody can cancel a booking by guessing its number. */
export function bookingToken(id: number) {
  const mac = crypto.createHmac('sha256', getConfig().sessionSecret).update(`meeting-booking:${id}`).digest('base64url').slice(0, 24);
  return `${id}-${mac}`;
}

export function readBookingToken(token: string) {
  const m = /^(\d{1,10})-([\w-]{24})$/.exec(token);
  if (!m) return null;
  const expected = bookingToken(Number(m[1]));
  return crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(token)) ? Number(m[1]) : null;
}

/** The booking link an agent offers in a chat carries the conversation, signed, so the booking shows up there. */
export function conversationToken(conversationId: number) {
  const mac = crypto.createHmac('sha256', getConfig().sessionSecret).update(`meeting-conversation:${conversationId}`).digest('base64url').slice(0, 16);
  return `${conversationId}-${mac}`;
}

export function readConversationToken(token: string | null | undefined) {
  const m = /^(\d{1,10})-([\w-]{16})$/.exec(token ?? '');
  if (!m) return null;
  return crypto.timingSafeEqual(Buffer.from(conversationToken(Number(m[1]))), Buffer.from(token!)) ? Number(m[1]) : null;
}

/** The default meeting's booking link for a conversation, as an agent pastes it into a reply. */
export async function meetingOfferFor(opts: { accountId: number; conversationId: number; baseUrl: string }) {
  const [meeting] = await getDb()
    .select({ slug: schema.meetingTypes.slug, name: schema.meetingTypes.name })
    .from(schema.meetingTypes)
    .where(and(eq(schema.meetingTypes.accountId, opts.accountId), eq(schema.meetingTypes.isDefault, true)));
  if (!meeting) return null;
  return { name: meeting.name, url: `${opts.baseUrl}/meet/${meeting.slug}?c=${conversationToken(opts.conversationId)}` };
}

/**
 * A meeting's booking link for a conversation (a chatbot's meeting step, ADR 088): the given meeting type, or the
 * default one; none when it is gone or the plan has no meetings.
 */
export async function meetingLinkFor(db: Tx | ReturnType<typeof getDb>, opts: { accountId: number; conversationId: number; meetingId: number | null }) {
  const m = schema.meetingTypes;
  const [meeting] = await db
    .select({ slug: m.slug, name: m.name })
    .from(m)
    .where(and(eq(m.accountId, opts.accountId), opts.meetingId ? eq(m.id, opts.meetingId) : eq(m.isDefault, true)));
  if (!meeting || !(await accountHasFeature({ accountId: opts.accountId, key: 'chatMessenger/integratedMeetings' }))) return null;
  const [account] = await db.select({ domain: schema.accounts.domain }).from(schema.accounts).where(eq(schema.accounts.id, opts.accountId));
  return { name: meeting.name, url: accountLink(account.domain, `/meet/${meeting.slug}?c=${conversationToken(opts.conversationId)}`) };
}

/**
 * Books a slot (ADR 072). The slot must be one of those offered now (calendars included). In the transaction each
 * candidate host's advisory lock is taken before their bookings are checked, so two visitors racing for one slot
 * are serialised per host: the second sees the first's booking and gets the next free host or SlotTakenError. The
 * contact is created or updated, `meeting_booked` is written, and the reminders are queued at their exact times.
 */
export async function bookMeeting(opts: {
  accountId: number;
  meeting: MeetingType;
  start: number;
  name: string;
  email: string;
  note: string;
  timezone: string;
  conversationId?: number | null;
  now?: Date;
}) {
  const slots = await availableSlots({ accountId: opts.accountId, meeting: opts.meeting, now: opts.now, fresh: true });
  const slot = slots.find((s) => s.start === opts.start);
  if (!slot) throw new SlotTakenError();
  const buffer = opts.meeting.bufferMinutes * 60_000;
  const startsAt = new Date(slot.start);
  const endsAt = new Date(slot.end);
  const booking = await getDb().transaction(async (tx) => {
    let host: number | undefined;
    for (const candidate of slot.hostIds) {
      await tx.execute(sql`select pg_advisory_xact_lock(${0x6d656574}, ${candidate})`);
      const clash = await bookedSpans(tx, opts.accountId, [candidate], new Date(slot.start - buffer), new Date(slot.end + buffer));
      if (!clash.get(candidate)?.length) {
        host = candidate;
        break;
      }
    }
    if (host === undefined) throw new SlotTakenError();
    const { contact } = await findOrCreateContact(tx, { accountId: opts.accountId, email: opts.email, name: opts.name, source: 'meeting' });
    // A link offered in a chat names its conversation: the booking is noted there (only a conversation of this account).
    const [conversation] = opts.conversationId
      ? await tx
          .select({ id: schema.conversations.id })
          .from(schema.conversations)
          .where(and(eq(schema.conversations.accountId, opts.accountId), eq(schema.conversations.id, opts.conversationId), sql`${schema.conversations.deletedAt} is null`))
      : [];
    const [row] = await tx
      .insert(b)
      .values({
        accountId: opts.accountId,
        meetingTypeId: opts.meeting.id,
        hostUserId: host,
        contactId: contact.id,
        conversationId: conversation?.id ?? null,
        startsAt,
        endsAt,
        name: opts.name,
        email: opts.email.toLowerCase(),
        note: opts.note,
        timezone: opts.timezone,
      })
      .returning();
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'meeting_booked',
      subjectType: 'meeting_booking',
      subjectId: row.id,
      payload: { meetingId: opts.meeting.id, meetingName: opts.meeting.name, contactId: contact.id, hostId: host, startsAt: startsAt.toISOString(), conversationId: conversation?.id ?? null },
      actor: { type: 'contact', id: contact.id },
    });
    if (conversation) {
      const when = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: opts.meeting.timezone }).format(startsAt);
      await addMessage(tx, { accountId: opts.accountId, conversationId: conversation.id, kind: 'system', text: `${opts.name} booked ${opts.meeting.name} for ${when} (${opts.meeting.timezone})` });
    }
    for (const minutes of opts.meeting.reminderMinutes) {
      const at = new Date(startsAt.getTime() - minutes * 60_000);
      if (at.getTime() > Date.now()) await enqueueInTx(tx, QUEUES.meetingReminder, { accountId: opts.accountId, bookingId: row.id, minutes, startsAt: startsAt.toISOString() }, { startAfter: at });
    }
    return row;
  });
  await afterBooking({ accountId: opts.accountId, meeting: opts.meeting, booking });
  return booking;
}

async function accountOf(accountId: number) {
  const [a] = await getDb().select({ domain: schema.accounts.domain, name: schema.accounts.name }).from(schema.accounts).where(eq(schema.accounts.id, accountId));
  return a;
}

async function hostOf(accountId: number, userId: number) {
  const [u] = await getDb()
    .select({ email: schema.users.email, firstName: schema.users.firstName, lastName: schema.users.lastName })
    .from(schema.users)
    .where(and(eq(schema.users.accountId, accountId), eq(schema.users.id, userId)));
  return u;
}

/** The booking as an iCalendar invitation (REQUEST), or its cancellation (CANCEL), with a stable UID. */
export const bookingUid = (id: number) => `booking-${id}@parley`;

/**
 * The booking as an iCalendar invitation (REQUEST), or its cancellation (CANCEL), with one UID per booking and the
 * booking's SEQUENCE (one more for a cancel), so calendar apps replace the event they have. `store` leaves METHOD
 * out: a calendar object stored on a CalDAV server must not carry one (RFC 4791 4.1).
 */
export function bookingIcs(opts: { meeting: Pick<MeetingType, 'name' | 'description' | 'location' | 'videoLink'>; booking: Booking; host: { email: string; name: string }; manageUrl: string; cancelled?: boolean; store?: boolean }) {
  const cal = ical({
    name: opts.meeting.name,
    prodId: { company: 'Parley', product: 'Meetings' },
    method: opts.store ? undefined : opts.cancelled ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST,
  });
  cal.createEvent({
    id: bookingUid(opts.booking.id),
    start: opts.booking.startsAt,
    end: opts.booking.endsAt,
    summary: opts.meeting.name,
    description: [opts.meeting.description, opts.booking.note, `Manage: ${opts.manageUrl}`].filter(Boolean).join('\n\n'),
    location: opts.meeting.videoLink || opts.meeting.location || undefined,
    url: opts.meeting.videoLink || undefined,
    organizer: { name: opts.host.name, email: opts.host.email },
    attendees: [{ name: opts.booking.name, email: opts.booking.email, rsvp: true }],
    status: opts.cancelled ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    sequence: opts.booking.sequence + (opts.cancelled ? 1 : 0),
  });
  return cal.toString();
}

/** The invitation of a stored booking (its .ics download), cancelled when the booking is. */
export async function invitationOf(opts: { accountId: number; booking: Booking; meeting: MeetingType; manageUrl: string }) {
  const host = await hostOf(opts.accountId, opts.booking.hostUserId);
  const name = `${host.firstName} ${host.lastName}`.trim() || host.email;
  return bookingIcs({ meeting: opts.meeting, booking: opts.booking, host: { email: host.email, name }, manageUrl: opts.manageUrl, cancelled: opts.booking.status === 'cancelled' });
}

function when(booking: Booking) {
  return new Intl.DateTimeFormat('en-GB', { dateStyle: 'full', timeStyle: 'short', timeZone: booking.timezone }).format(booking.startsAt) + ` (${booking.timezone})`;
}

/** After the commit: the confirmation with its invitation, the host's copy, and the event in the host's calendar. */
async function afterBooking(opts: { accountId: number; meeting: MeetingType; booking: Booking }) {
  const { booking, meeting } = opts;
  const [account, host] = await Promise.all([accountOf(opts.accountId), hostOf(opts.accountId, booking.hostUserId)]);
  const hostName = `${host.firstName} ${host.lastName}`.trim() || host.email;
  const manageUrl = accountLink(account.domain, `/meet/booking/${bookingToken(booking.id)}`);
  const ics = bookingIcs({ meeting, booking, host: { email: host.email, name: hostName }, manageUrl });
  const text = [
    `Your meeting "${meeting.name}" with ${hostName} (${account.name}) is booked for ${when(booking)}.`,
    meeting.videoLink ? `Join: ${meeting.videoLink}` : meeting.location ? `Where: ${meeting.location}` : '',
    `To reschedule, cancel or see the details: ${manageUrl}`,
  ]
    .filter(Boolean)
    .join('\n\n');
  const attachments = [{ filename: 'invite.ics', content: ics, contentType: 'text/calendar; charset=utf-8; method=REQUEST' }];
  try {
    await sendEmail({ accountId: opts.accountId, to: booking.email, subject: `Booked: ${meeting.name}`, text, attachments });
    await sendEmail({ accountId: opts.accountId, to: host.email, subject: `New booking: ${meeting.name} with ${booking.name}`, text: `${booking.name} <${booking.email}> booked ${meeting.name} for ${when({ ...booking, timezone: meeting.timezone })}.\n\n${booking.note}`, attachments });
  } catch (err) {
    getLogger().error({ err: (err as Error).message, bookingId: booking.id }, 'meeting confirmation email failed');
  }
  await writeCalendars({ accountId: opts.accountId, meeting, booking, host: { email: host.email, name: hostName }, manageUrl });
}

function calendarEvent(opts: { meeting: MeetingType; booking: Booking; host: { email: string; name: string }; manageUrl: string }): CalendarEvent {
  const { booking, meeting } = opts;
  return {
    uid: bookingUid(booking.id),
    summary: `${meeting.name} with ${booking.name}`,
    description: booking.note,
    location: meeting.videoLink || meeting.location,
    start: booking.startsAt,
    end: booking.endsAt,
    attendeeEmail: booking.email,
    sequence: booking.sequence,
    ics: bookingIcs({ ...opts, store: true }),
  };
}

/** The booking into its host's connected calendars; where it went is kept, to move or remove it later. */
async function writeCalendars(opts: { accountId: number; meeting: MeetingType; booking: Booking; host: { email: string; name: string }; manageUrl: string; previous?: ReturnType<typeof readEventRefs> }) {
  const refs = await putBookingEvents({ accountId: opts.accountId, hostUserId: opts.booking.hostUserId, event: calendarEvent(opts), previous: opts.previous });
  const stored = refs.google || refs.caldav ? JSON.stringify(refs) : null;
  if (stored === opts.booking.calendarEventId) return;
  await getDb()
    .update(b)
    .set({ calendarEventId: stored })
    .where(and(eq(b.accountId, opts.accountId), eq(b.id, opts.booking.id)));
}

export async function getBooking(opts: { accountId: number; id: number }) {
  const [row] = await getDb()
    .select({ booking: b, meeting: schema.meetingTypes })
    .from(b)
    .innerJoin(schema.meetingTypes, and(eq(schema.meetingTypes.id, b.meetingTypeId), eq(schema.meetingTypes.accountId, b.accountId)))
    .where(and(eq(b.accountId, opts.accountId), eq(b.id, opts.id)));
  return row;
}

/** The booking a signed link names, in this account (a forged or foreign token finds nothing). */
export async function bookingByToken(opts: { accountId: number; token: string | undefined }) {
  const id = readBookingToken(opts.token ?? '');
  return id === null ? undefined : getBooking({ accountId: opts.accountId, id });
}

/** Cancels a booking (visitor's signed link or an agent): the slot frees, a CANCEL invitation goes out. */
export async function cancelBooking(opts: { accountId: number; id: number; actor: { type: 'contact' | 'user'; id: number | null } }) {
  const row = await getDb().transaction(async (tx) => {
    const [cancelled] = await tx
      .update(b)
      .set({ status: 'cancelled', cancelledAt: new Date() })
      .where(and(eq(b.accountId, opts.accountId), eq(b.id, opts.id), eq(b.status, 'confirmed')))
      .returning();
    if (!cancelled) return undefined;
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'meeting_cancelled',
      subjectType: 'meeting_booking',
      subjectId: cancelled.id,
      payload: { meetingId: cancelled.meetingTypeId, contactId: cancelled.contactId, startsAt: cancelled.startsAt.toISOString() },
      actor: opts.actor,
    });
    return cancelled;
  });
  if (!row) return undefined;
  const found = await getBooking({ accountId: opts.accountId, id: row.id });
  const [account, host] = await Promise.all([accountOf(opts.accountId), hostOf(opts.accountId, row.hostUserId)]);
  const hostName = `${host.firstName} ${host.lastName}`.trim() || host.email;
  const manageUrl = accountLink(account.domain, `/meet/booking/${bookingToken(row.id)}`);
  const ics = bookingIcs({ meeting: found!.meeting, booking: row, host: { email: host.email, name: hostName }, manageUrl, cancelled: true });
  const attachments = [{ filename: 'cancel.ics', content: ics, contentType: 'text/calendar; charset=utf-8; method=CANCEL' }];
  try {
    await sendEmail({ accountId: opts.accountId, to: row.email, subject: `Cancelled: ${found!.meeting.name}`, text: `Your meeting "${found!.meeting.name}" on ${when(row)} is cancelled.`, attachments });
    await sendEmail({ accountId: opts.accountId, to: host.email, subject: `Cancelled: ${found!.meeting.name} with ${row.name}`, text: `${row.name} <${row.email}>'s meeting on ${when({ ...row, timezone: found!.meeting.timezone })} is cancelled.`, attachments });
  } catch (err) {
    getLogger().error({ err: (err as Error).message, bookingId: row.id }, 'meeting cancellation email failed');
  }
  await deleteBookingEvents({ accountId: opts.accountId, hostUserId: row.hostUserId, refs: readEventRefs(row.calendarEventId) });
  return row;
}

/**
 * Reschedules a booking from its signed link (ADR 088): the new time must be offered now (the booking's own time not
 * counting against it), the same host is kept when free, else the next free host; the old time frees as the row
 * moves. In one transaction, under the hosts' locks as in booking: the move, SEQUENCE + 1, `meeting_rescheduled`
 * with before and after, the conversation's line and the reminders at the new times (the old ones skip themselves,
 * their start no longer matches). Then the updated invitation (same UID, higher SEQUENCE) and the calendars.
 */
export async function rescheduleBooking(opts: { accountId: number; id: number; start: number; now?: Date }) {
  const found = await getBooking({ accountId: opts.accountId, id: opts.id });
  if (!found || found.booking.status !== 'confirmed') return undefined;
  const { booking: old, meeting } = found;
  if (old.startsAt.getTime() === opts.start) return old;
  const slots = await availableSlots({ accountId: opts.accountId, meeting, now: opts.now, fresh: true, reschedule: old });
  const slot = slots.find((x) => x.start === opts.start);
  if (!slot) throw new SlotTakenError();
  const buffer = meeting.bufferMinutes * 60_000;
  const candidates = [...slot.hostIds].sort((x, y) => Number(y === old.hostUserId) - Number(x === old.hostUserId));
  const moved = await getDb().transaction(async (tx) => {
    let host: number | undefined;
    for (const candidate of candidates) {
      await tx.execute(sql`select pg_advisory_xact_lock(${0x6d656574}, ${candidate})`);
      const clash = await bookedSpans(tx, opts.accountId, [candidate], new Date(slot.start - buffer), new Date(slot.end + buffer), old.id);
      if (!clash.get(candidate)?.length) {
        host = candidate;
        break;
      }
    }
    if (host === undefined) throw new SlotTakenError();
    const [row] = await tx
      .update(b)
      .set({ startsAt: new Date(slot.start), endsAt: new Date(slot.end), hostUserId: host, sequence: sql`${b.sequence} + 1`, rescheduledAt: new Date() })
      .where(and(eq(b.accountId, opts.accountId), eq(b.id, old.id), eq(b.status, 'confirmed')))
      .returning();
    if (!row) return undefined;
    await emitEvent(tx, {
      accountId: opts.accountId,
      type: 'meeting_rescheduled',
      subjectType: 'meeting_booking',
      subjectId: row.id,
      payload: {
        meetingId: meeting.id,
        meetingName: meeting.name,
        contactId: row.contactId,
        hostId: host,
        before: { startsAt: old.startsAt.toISOString(), hostId: old.hostUserId },
        after: { startsAt: row.startsAt.toISOString(), hostId: host },
      },
      actor: { type: 'contact', id: row.contactId },
    });
    if (row.conversationId) {
      const at = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: meeting.timezone }).format(row.startsAt);
      await addMessage(tx, { accountId: opts.accountId, conversationId: row.conversationId, kind: 'system', text: `${row.name} moved ${meeting.name} to ${at} (${meeting.timezone})` });
    }
    for (const minutes of meeting.reminderMinutes) {
      const at = new Date(row.startsAt.getTime() - minutes * 60_000);
      if (at.getTime() > Date.now()) await enqueueInTx(tx, QUEUES.meetingReminder, { accountId: opts.accountId, bookingId: row.id, minutes, startsAt: row.startsAt.toISOString() }, { startAfter: at });
    }
    return row;
  });
  if (!moved) return undefined;
  const [account, host] = await Promise.all([accountOf(opts.accountId), hostOf(opts.accountId, moved.hostUserId)]);
  const hostName = `${host.firstName} ${host.lastName}`.trim() || host.email;
  const manageUrl = accountLink(account.domain, `/meet/booking/${bookingToken(moved.id)}`);
  const ics = bookingIcs({ meeting, booking: moved, host: { email: host.email, name: hostName }, manageUrl });
  const attachments = [{ filename: 'invite.ics', content: ics, contentType: 'text/calendar; charset=utf-8; method=REQUEST' }];
  try {
    await sendEmail({
      accountId: opts.accountId,
      to: moved.email,
      subject: `Rescheduled: ${meeting.name}`,
      text: `Your meeting "${meeting.name}" with ${hostName} (${account.name}) moved from ${when(old)} to ${when(moved)}.\n\nTo change or cancel it: ${manageUrl}`,
      attachments,
    });
    await sendEmail({
      accountId: opts.accountId,
      to: host.email,
      subject: `Rescheduled: ${meeting.name} with ${moved.name}`,
      text: `${moved.name} <${moved.email}> moved ${meeting.name} to ${when({ ...moved, timezone: meeting.timezone })}.`,
      attachments,
    });
  } catch (err) {
    getLogger().error({ err: (err as Error).message, bookingId: moved.id }, 'meeting reschedule email failed');
  }
  const refs = readEventRefs(old.calendarEventId);
  if (moved.hostUserId === old.hostUserId) {
    await writeCalendars({ accountId: opts.accountId, meeting, booking: moved, host: { email: host.email, name: hostName }, manageUrl, previous: refs });
  } else {
    // Another host took the new time: the event leaves the old host's calendars and goes into the new host's.
    await deleteBookingEvents({ accountId: opts.accountId, hostUserId: old.hostUserId, refs });
    await writeCalendars({ accountId: opts.accountId, meeting, booking: { ...moved, calendarEventId: null }, host: { email: host.email, name: hostName }, manageUrl });
  }
  return moved;
}

/** The reminder job: sent only while the booking stands at the time it was queued for. */
export async function sendMeetingReminder(opts: { accountId: number; bookingId: number; minutes: number; startsAt: string }) {
  const found = await getBooking({ accountId: opts.accountId, id: opts.bookingId });
  if (!found || found.booking.status !== 'confirmed' || found.booking.startsAt.toISOString() !== opts.startsAt) return { skipped: true };
  const { booking, meeting } = found;
  const account = await accountOf(opts.accountId);
  const manageUrl = accountLink(account.domain, `/meet/booking/${bookingToken(booking.id)}`);
  await sendEmail({
    accountId: opts.accountId,
    to: booking.email,
    subject: `Reminder: ${meeting.name}`,
    text: `Your meeting "${meeting.name}" starts ${when(booking)}.${meeting.videoLink ? `\n\nJoin: ${meeting.videoLink}` : ''}\n\nDetails or cancel: ${manageUrl}`,
  });
  return { sent: true };
}

/** A meeting type's bookings, upcoming first (CRM → Meetings → one meeting). */
export async function listBookings(opts: { accountId: number; meetingTypeId: number; limit?: number }) {
  return getDb()
    .select({
      id: b.id,
      name: b.name,
      email: b.email,
      startsAt: b.startsAt,
      endsAt: b.endsAt,
      status: b.status,
      note: b.note,
      contactId: b.contactId,
      conversationId: b.conversationId,
      hostName: sql<string>`coalesce(nullif(trim(${schema.users.firstName} || ' ' || ${schema.users.lastName}), ''), ${schema.users.email})`,
    })
    .from(b)
    .innerJoin(schema.users, and(eq(schema.users.id, b.hostUserId), eq(schema.users.accountId, b.accountId)))
    .where(and(eq(b.accountId, opts.accountId), eq(b.meetingTypeId, opts.meetingTypeId)))
    .orderBy(desc(b.startsAt))
    .limit(opts.limit ?? 200);
}
