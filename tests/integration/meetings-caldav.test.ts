import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { availableSlots, bookMeeting, cancelBooking, rescheduleBooking } from '../../app/models/meetings/bookings.server';
import { busyOfIcs } from '../../app/models/meetings/caldav.server';
import { createMeetingType } from '../../app/models/meetings/meetings.server';
import { resetSingleton } from '../../app/utils/singleton.server';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { radicaleInstalled, startRadicale } from '../helpers/radicale';
import { startSmtpSink } from '../helpers/smtp-sink';

/** CalDAV against a real server: Debian's Radicale (ADR 088). */
let app: Awaited<ReturnType<typeof startTestApp>>;
let radicale: Awaited<ReturnType<typeof startRadicale>>;
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;

beforeAll(async () => {
  if (!radicaleInstalled()) throw new Error('Radicale is needed for the CalDAV tests: apt-get install -y radicale');
  radicale = await startRadicale();
  smtp = await startSmtpSink();
  process.env.PARLEY_ALLOW_PRIVATE_DESTINATIONS = 'true';
  resetSingleton('config');
  app = await startTestApp();
}, 60_000);
afterAll(async () => {
  await app?.close();
  await radicale?.close();
  await smtp?.stop();
  delete process.env.PARLEY_ALLOW_PRIVATE_DESTINATIONS;
  resetSingleton('config');
});

const ics = (body: string) => `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n${body}\r\nEND:VCALENDAR\r\n`;
const stamp = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

describe('CalDAV busy times', () => {
  it('reads single, all-day, zoned, recurring (with EXDATE and an override) and transparent events', () => {
    const from = Date.UTC(2026, 2, 20);
    const to = Date.UTC(2026, 3, 10);
    const spans = busyOfIcs(
      ics(
        [
          'BEGIN:VEVENT\r\nUID:a\r\nDTSTART:20260323T100000Z\r\nDTEND:20260323T110000Z\r\nEND:VEVENT',
          'BEGIN:VEVENT\r\nUID:b\r\nDTSTART;VALUE=DATE:20260324\r\nDTEND;VALUE=DATE:20260325\r\nEND:VEVENT',
          'BEGIN:VEVENT\r\nUID:c\r\nDTSTART;TZID=Europe/Paris:20260324T090000\r\nDURATION:PT30M\r\nTRANSP:TRANSPARENT\r\nEND:VEVENT',
          // Weekly at 09:00 Paris time across the clock change of 29 March, one week excluded, one week moved.
          'BEGIN:VEVENT\r\nUID:d\r\nDTSTART;TZID=Europe/Paris:20260320T090000\r\nDTEND;TZID=Europe/Paris:20260320T100000\r\nRRULE:FREQ=WEEKLY;COUNT=4\r\nEXDATE;TZID=Europe/Paris:20260327T090000\r\nBEGIN:VALARM\r\nTRIGGER:-PT15M\r\nACTION:DISPLAY\r\nEND:VALARM\r\nEND:VEVENT',
          'BEGIN:VEVENT\r\nUID:d\r\nRECURRENCE-ID;TZID=Europe/Paris:20260403T090000\r\nDTSTART;TZID=Europe/Paris:20260403T140000\r\nDTEND;TZID=Europe/Paris:20260403T150000\r\nEND:VEVENT',
        ].join('\r\n'),
      ),
      from,
      to,
    );
    const iso = spans.map((s) => new Date(s.start).toISOString()).sort();
    expect(iso).toEqual(
      [
        '2026-03-20T08:00:00.000Z', // 09:00 CET
        '2026-03-23T10:00:00.000Z',
        '2026-03-24T00:00:00.000Z', // all day
        '2026-04-03T12:00:00.000Z', // the moved instance, 14:00 CEST
        '2026-04-10T07:00:00.000Z', // 09:00 CEST, after the clock change
      ].filter((x) => Date.parse(x) < to),
    );
  });
});

describe('CalDAV calendars (Radicale)', () => {
  async function setup() {
    const a = await createTestAccount();
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    const post = (form: Record<string, string>) => app.request('/settings/meetings?index', { domain: a.domain, cookie, form });
    const get = () => app.request('/settings/meetings', { domain: a.domain, cookie });
    return { ...a, cookie, post, get };
  }

  it('connects with the password encrypted at rest, keeps busy times free, writes, moves and removes the booking, and disconnects', async () => {
    const s = await setup();
    // Field errors, a wrong password and an address that is not a calendar are refused; nothing is kept.
    const empty = await s.post({ intent: 'caldav-connect', url: 'ftp://x', username: '', password: '' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('Enter the address as https://…');
    expect(empty.text).toContain('Enter the user name');
    const wrong = await s.post({ intent: 'caldav-connect', url: radicale.calendarUrl, username: radicale.username, password: 'wrong' });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('The CalDAV server refused the user name or password');
    expect(wrong.text).toContain(radicale.calendarUrl);
    const notCalendar = await s.post({
      intent: 'caldav-connect',
      url: `${radicale.base}/${radicale.username}/`,
      username: radicale.username,
      password: radicale.password,
    });
    expect(notCalendar.status).toBe(400);
    expect(notCalendar.text).toContain('This address is not a calendar');
    expect(await getDb().select().from(schema.calendarConnections).where(eq(schema.calendarConnections.accountId, s.account.id))).toHaveLength(0);

    const ok = await s.post({ intent: 'caldav-connect', url: radicale.calendarUrl, username: radicale.username, password: radicale.password });
    expect(ok.status).toBe(302);
    const [conn] = await getDb().select().from(schema.calendarConnections).where(eq(schema.calendarConnections.accountId, s.account.id));
    expect(conn).toMatchObject({ provider: 'caldav', userId: s.owner.id, serverUrl: radicale.calendarUrl, username: radicale.username });
    expect(conn.accessToken).toMatch(/^v1\./);
    expect(conn.accessToken).not.toContain(radicale.password);
    expect(conn.accessToken).not.toContain(Buffer.from(radicale.password).toString('base64'));
    const page = await s.get();
    expect(page.text).toContain('CalDAV calendar connected');
    expect(page.text).not.toContain(radicale.password);

    // A busy event put in the calendar by another app removes its slot.
    const meeting = await createMeetingType({
      accountId: s.account.id,
      actorId: s.owner.id,
      input: {
        name: 'CalDAV demo',
        description: '',
        slotMinutes: 30,
        weekdays: 'everyday',
        dayStart: '09:00',
        dayEnd: '17:00',
        timezone: 'UTC',
        bookingWindowWeeks: 2,
        bufferMinutes: 0,
        reminderMinutes: [],
        hostIds: [s.owner.id],
        location: 'Office',
        videoLink: '',
      },
    });
    const before = await availableSlots({ accountId: s.account.id, meeting, fresh: true });
    const busy = before[4];
    const put = await radicale.request(
      'PUT',
      `${radicale.calendarPath}dentist.ics`,
      ics(
        `BEGIN:VEVENT\r\nUID:dentist-${s.account.id}\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:${stamp(busy.start)}\r\nDTEND:${stamp(
          busy.end,
        )}\r\nSUMMARY:Dentist\r\nEND:VEVENT`,
      ),
      {
        'content-type': 'text/calendar',
      },
    );
    expect(put.status).toBe(201);
    const after = await availableSlots({ accountId: s.account.id, meeting, fresh: true });
    expect(after.some((x) => x.start === busy.start)).toBe(false);
    expect(after).toHaveLength(before.length - 1);

    // Booked: the event is in the calendar under the booking's UID (no METHOD in a stored object).
    const booking = await bookMeeting({
      accountId: s.account.id,
      meeting,
      start: before[0].start,
      name: 'Cal Dav',
      email: 'cal@example.test',
      note: '',
      timezone: 'UTC',
    });
    const [stored] = await getDb()
      .select()
      .from(schema.meetingBookings)
      .where(and(eq(schema.meetingBookings.accountId, s.account.id), eq(schema.meetingBookings.id, booking.id)));
    const href = (JSON.parse(stored.calendarEventId!) as { caldav: string }).caldav;
    expect(href).toBe(`${radicale.calendarUrl}booking-${booking.id}%40parley.ics`);
    const event = await radicale.request('GET', new URL(href).pathname);
    expect(event.status).toBe(200);
    expect(event.text).toContain(`UID:booking-${booking.id}@parley`);
    expect(event.text).not.toContain('METHOD:');
    expect(event.text).toContain(`DTSTART:${stamp(before[0].start)}`);
    // Its own event does not block the booking's own time when it is rescheduled.
    expect((await availableSlots({ accountId: s.account.id, meeting, fresh: true, reschedule: stored })).some((x) => x.start === before[0].start)).toBe(true);

    // Rescheduled: the same resource, the new time, a higher SEQUENCE.
    await rescheduleBooking({ accountId: s.account.id, id: booking.id, start: before[1].start });
    const moved = await radicale.request('GET', new URL(href).pathname);
    expect(moved.text).toContain(`DTSTART:${stamp(before[1].start)}`);
    expect(moved.text).toContain('SEQUENCE:1');

    // Cancelled: the event is deleted.
    await cancelBooking({ accountId: s.account.id, id: booking.id, actor: { type: 'user', id: s.owner.id } });
    expect((await radicale.request('GET', new URL(href).pathname)).status).toBe(404);

    // Disconnect removes the stored credentials.
    expect((await s.post({ intent: 'caldav-disconnect' })).status).toBe(302);
    expect(await getDb().select().from(schema.calendarConnections).where(eq(schema.calendarConnections.accountId, s.account.id))).toHaveLength(0);
  });

  it("one account's CalDAV calendar never reaches another", async () => {
    const a = await setup();
    const b = await setup();
    expect((await a.post({ intent: 'caldav-connect', url: radicale.calendarUrl, username: radicale.username, password: radicale.password })).status).toBe(302);
    const other = await b.get();
    expect(other.text).not.toContain(radicale.calendarUrl);
    expect(other.text).toContain('Connect CalDAV calendar');
    // B disconnecting touches only B's own (none).
    await b.post({ intent: 'caldav-disconnect' });
    expect(await getDb().select().from(schema.calendarConnections).where(eq(schema.calendarConnections.accountId, a.account.id))).toHaveLength(1);
    await a.post({ intent: 'caldav-disconnect' });
  });
});
