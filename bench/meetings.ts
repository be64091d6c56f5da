/**
 * Meetings (issue 18). Ceilings:
 *   - slots for a meeting type with 5 hosts, each with 500 busy blocks in the window, p95 < 50 ms: the pure
 *     computation, availableSlots with 500 bookings per host in the database, and availableSlots with 500 busy blocks
 *     per host read from the Google Calendar stand-in (free/busy over HTTP, one call per host);
 *   - 50 concurrent bookers on one slot: as many bookings as hosts, never two for one host.
 * Run: npm run bench:meetings
 */
import os from 'node:os';
import { sql } from 'drizzle-orm';
import { benchDatabase, measure } from './support';

const HOSTS = 5;
const BUSY = 500;

async function main() {
  const server = await benchDatabase('meetings');
  const google = await (await import('../tests/helpers/stand-ins/google-calendar')).startGoogleCalendarStandIn({ clientId: 'bench', clientSecret: 'bench' });
  Object.assign(process.env, { GOOGLE_CLIENT_ID: 'bench', GOOGLE_CLIENT_SECRET: 'bench', GOOGLE_ACCOUNTS_BASE: google.base, GOOGLE_OAUTH_BASE: google.base, GOOGLE_API_BASE: google.base, PARLEY_ALLOW_PRIVATE_DESTINATIONS: 'true' });
  const { getDb, closeDb, schema } = await import('../db/client');
  const { createTestAccount, createTestUser } = await import('../tests/factories');
  const { createMeetingType } = await import('../app/models/meetings/meetings.server');
  const { availableSlots, bookMeeting, rulesOf, SlotTakenError } = await import('../app/models/meetings/bookings.server');
  const { computeSlots, windowEnd } = await import('../app/models/meetings/slots');
  const db = getDb();
  const rows: { label: string; value: number; ceiling: number; unit: string }[] = [];

  const a = await createTestAccount({ domain: 'benchmeetings' });
  const hosts = [a.owner.id];
  for (let i = 1; i < HOSTS; i++) hosts.push((await createTestUser({ accountId: a.account.id, roleKind: 'agent', email: `host${i}@bench.test` })).id);
  const input = { name: 'Demo', description: '', slotMinutes: 30, weekdays: 'everyday' as const, dayStart: '08:00', dayEnd: '18:00', timezone: 'Europe/Berlin', bookingWindowWeeks: 12, bufferMinutes: 15, reminderMinutes: [] as number[], hostIds: hosts, location: '', videoLink: '' };
  const meeting = await createMeetingType({ accountId: a.account.id, actorId: a.owner.id, input });
  const now = new Date();
  const end = windowEnd(now, rulesOf(meeting));
  const span = end - now.getTime();
  const randomBlocks = (n: number, seed: number) => {
    let x = seed;
    const rnd = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    return Array.from({ length: n }, () => {
      const start = now.getTime() + Math.floor(rnd() * span / 1_800_000) * 1_800_000;
      return { start, end: start + 30 * 60_000 * (1 + Math.floor(rnd() * 3)) };
    });
  };

  // 1. The pure computation.
  const hostBusy = hosts.map((id, i) => ({ id, busy: randomBlocks(BUSY, i + 1) }));
  const pure = await measure(`computeSlots, ${HOSTS} hosts x ${BUSY} busy blocks, 12 weeks`, 200, async () => computeSlots({ now, rules: rulesOf(meeting), hosts: hostBusy }));
  rows.push({ label: 'slots, pure computation p95', value: pure.p95, ceiling: 50, unit: 'ms' });

  // 2. 500 bookings per host in the database (distinct starts per host).
  const bookingRows = hostBusy.flatMap((h) => {
    const seen = new Set<number>();
    return h.busy.filter((b) => !seen.has(b.start) && seen.add(b.start)).map((b, i) => ({ accountId: a.account.id, meetingTypeId: meeting.id, hostUserId: h.id, startsAt: new Date(b.start), endsAt: new Date(b.end), name: `Guest ${i}`, email: `g${i}@bench.test` }));
  });
  for (let i = 0; i < bookingRows.length; i += 1000) await db.insert(schema.meetingBookings).values(bookingRows.slice(i, i + 1000));
  await db.execute(sql`analyze meeting_bookings`);
  const withDb = await measure(`availableSlots, ${bookingRows.length} bookings in the database`, 100, () => availableSlots({ accountId: a.account.id, meeting }));
  rows.push({ label: 'slots with 500 bookings per host (database) p95', value: withDb.p95, ceiling: 50, unit: 'ms' });

  // 3. 500 busy blocks per host from connected Google calendars (the stand-in answers each host's free/busy call).
  await db.delete(schema.meetingBookings).where(sql`account_id = ${a.account.id}`);
  google.busy.push(...randomBlocks(BUSY, 99).map((b) => ({ start: new Date(b.start).toISOString(), end: new Date(b.end).toISOString() })));
  await db.insert(schema.calendarConnections).values(hosts.map((userId) => ({ accountId: a.account.id, userId, provider: 'google' as const, accessToken: 'x', tokenExpiresAt: new Date(Date.now() + 3600_000) })));
  // The stand-in checks tokens: one real grant through the consent and code exchange, shared by the connections.
  const consent = new URL((await import('../app/models/meetings/google-calendar.server')).googleConsentUrl({ redirectUri: 'http://bench.local/cb', state: 's' }));
  const codeUrl = await new Promise<string>((resolve) => import('node:http').then((http) => http.get(consent, (res) => resolve(res.headers.location!))));
  const tokens = await (await import('../app/models/meetings/google-calendar.server')).exchangeGoogleCode({ code: new URL(codeUrl).searchParams.get('code')!, redirectUri: 'http://bench.local/cb' });
  await db.execute(sql`update calendar_connections set access_token = ${tokens.accessToken}, token_expires_at = now() + interval '1 hour' where account_id = ${a.account.id}`);
  const slotsBefore = computeSlots({ now, rules: rulesOf(meeting), hosts: hosts.map((id) => ({ id, busy: [] })) }).length;
  const fresh = await measure(`availableSlots, ${BUSY} Google busy blocks per host, fresh (booking)`, 50, () => availableSlots({ accountId: a.account.id, meeting, fresh: true }));
  console.log(`  (a booking reads the calendars fresh: p95 ${fresh.p95.toFixed(1)} ms, five free/busy calls over HTTP to the stand-in)`);
  const withGoogle = await measure(`availableSlots, ${BUSY} Google busy blocks per host (page view)`, 100, () => availableSlots({ accountId: a.account.id, meeting }));
  const slotsAfter = (await availableSlots({ accountId: a.account.id, meeting })).length;
  console.log(`  slots offered: ${slotsBefore} without busy times, ${slotsAfter} with them; free/busy calls so far ${google.freeBusyCalls.length}`);
  rows.push({ label: 'slots with 500 Google busy blocks per host p95', value: withGoogle.p95, ceiling: 50, unit: 'ms' });
  await db.delete(schema.calendarConnections).where(sql`account_id = ${a.account.id}`);

  // 4. 50 concurrent bookers on one slot.
  const [slot] = await availableSlots({ accountId: a.account.id, meeting });
  const t = Date.now();
  const results = await Promise.allSettled(
    Array.from({ length: 50 }, (_, i) => bookMeeting({ accountId: a.account.id, meeting, start: slot.start, name: `Racer ${i}`, email: `racer${i}@bench.test`, note: '', timezone: 'UTC' })),
  );
  const ms = Date.now() - t;
  const made = results.filter((r) => r.status === 'fulfilled').length;
  const refused = results.filter((r) => r.status === 'rejected' && r.reason instanceof SlotTakenError).length;
  const [{ doubles }] = await db.execute<{ doubles: number }>(
    sql`select count(*)::int as doubles from meeting_bookings x join meeting_bookings y on x.host_user_id = y.host_user_id and x.id < y.id and x.status = 'confirmed' and y.status = 'confirmed' and tstzrange(x.starts_at, x.ends_at) && tstzrange(y.starts_at, y.ends_at) where x.account_id = ${a.account.id}`,
  );
  console.log(`50 concurrent bookers on one slot (${slot.hostIds.length} hosts free): ${made} booked, ${refused} told the time was taken, ${doubles} double bookings, ${ms} ms in all`);
  rows.push({ label: 'double bookings under 50 concurrent bookers', value: Number(doubles), ceiling: 0, unit: '' });
  rows.push({ label: 'bookings made beyond the number of free hosts', value: Math.max(0, made - slot.hostIds.length), ceiling: 0, unit: '' });

  console.log(`\nload ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  let failed = 0;
  for (const row of rows) {
    const ok = row.value <= row.ceiling;
    if (!ok) failed++;
    console.log(`${ok ? 'ok  ' : 'OVER'} ${row.label.padEnd(58)} ${row.value.toFixed(1).padStart(8)} ${row.unit}  ceiling ${row.ceiling} ${row.unit}`);
  }
  await google.close();
  await closeDb();
  await server.stop();
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
