import { and, asc, eq, isNotNull } from 'drizzle-orm';
import { getDb, schema } from './client';
import { createMeetingType } from '../app/models/meetings/meetings.server';

/**
 * Demo meetings and logged time (issue 18): two meeting types with bookings of demo contacts, past and coming, and
 * time entries on the first conversations. Written directly (no emails, no reminder jobs) and deterministic for a
 * given `now`.
 */
export async function seedDemoMeetingsAndTime(opts: { accountId: number; ownerId: number; adminId: number; agentIds: number[]; now?: Date }) {
  const now = opts.now ?? new Date();
  const db = getDb();
  const demo = await createMeetingType({
    accountId: opts.accountId,
    actorId: opts.ownerId,
    input: { name: 'Product demo', description: 'A 30-minute tour of Parley with one of our team.', slotMinutes: 30, weekdays: 'mon-fri', dayStart: '09:00', dayEnd: '17:00', timezone: 'Europe/London', bookingWindowWeeks: 3, bufferMinutes: 15, reminderMinutes: [60, 1440], hostIds: [opts.adminId, opts.agentIds[0]], location: '', videoLink: 'https://meet.example.com/parley-demo' },
  });
  const onboarding = await createMeetingType({
    accountId: opts.accountId,
    actorId: opts.ownerId,
    input: { name: 'Onboarding call for new customers', description: 'Set up your inboxes and messenger with us.', slotMinutes: 60, weekdays: 'mon-fri', dayStart: '10:00', dayEnd: '16:00', timezone: 'Europe/London', bookingWindowWeeks: 4, bufferMinutes: 0, reminderMinutes: [60], hostIds: [opts.agentIds[1] ?? opts.adminId], location: 'Video call', videoLink: '' },
  });
  const contacts = await db
    .select({ id: schema.contacts.id, firstName: schema.contacts.firstName, lastName: schema.contacts.lastName, email: schema.contacts.email })
    .from(schema.contacts)
    .where(and(eq(schema.contacts.accountId, opts.accountId), isNotNull(schema.contacts.email)))
    .orderBy(asc(schema.contacts.id))
    .limit(12);
  // Whole hours at 10:00 UTC, spread from two weeks ago to two weeks ahead.
  const day0 = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 10);
  const rows = contacts.map((c, i) => {
    const meeting = i % 3 === 2 ? onboarding : demo;
    const hostUserId = meeting === onboarding ? (opts.agentIds[1] ?? opts.adminId) : i % 2 ? opts.adminId : opts.agentIds[0];
    const startsAt = new Date(day0 + (i - 6) * 2 * 86_400_000 + (i % 2) * 3_600_000);
    return {
      accountId: opts.accountId,
      meetingTypeId: meeting.id,
      hostUserId,
      contactId: c.id,
      startsAt,
      endsAt: new Date(startsAt.getTime() + meeting.slotMinutes * 60_000),
      name: `${c.firstName} ${c.lastName}`.trim(),
      email: c.email!,
      note: i % 4 === 0 ? 'Interested in the messenger and meetings.' : '',
      timezone: 'Europe/London',
      status: (i === 4 ? 'cancelled' : 'confirmed') as 'cancelled' | 'confirmed',
      // One visitor moved their meeting once with the link in their email (ADR 088).
      ...(i === 7 ? { sequence: 1, rescheduledAt: new Date(now.getTime() - 86_400_000) } : {}),
    };
  });
  if (rows.length) await db.insert(schema.meetingBookings).values(rows);

  const conversations = await db
    .select({ id: schema.conversations.id })
    .from(schema.conversations)
    .where(eq(schema.conversations.accountId, opts.accountId))
    .orderBy(asc(schema.conversations.id))
    .limit(15);
  const people = [opts.adminId, ...opts.agentIds];
  const entries = conversations.flatMap((c, i) =>
    Array.from({ length: 1 + (i % 3) }, (_, j) => ({
      accountId: opts.accountId,
      conversationId: c.id,
      userId: people[(i + j) % people.length],
      startedAt: new Date(now.getTime() - (i + 1) * 86_400_000 + j * 3_600_000),
      durationSeconds: (10 + ((i * 7 + j * 13) % 50)) * 60,
      note: ['Checked the invoice history', 'Reproduced the problem', 'Call with the customer', 'Wrote the help article'][(i + j) % 4],
      billable: (i + j) % 3 === 0,
    })),
  );
  if (entries.length) await db.insert(schema.timeEntries).values(entries);
}
