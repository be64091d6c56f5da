import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createBusinessHours, getBusinessHours, getInboxBusinessHours, listBusinessHours } from '../../app/models/automation/business-hours.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { ROLE_LOCKED_MESSAGE } from '../../app/models/roles/permissions';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

const PATH = '/settings/business-hours';

/** An account with its owner and a user whose custom role has no permission. */
async function setupAccount() {
  const a = await createTestAccount();
  const [bareRole] = await getDb().insert(schema.roles).values({ accountId: a.account.id, name: 'Viewer', permissions: [] }).returning();
  const viewer = await createTestUser({ accountId: a.account.id, roleId: bareRole.id, firstName: 'Vera' });
  return {
    ...a,
    ownerCookie: await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id }),
    viewerCookie: await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: viewer.id }),
  };
}
type Account = Awaited<ReturnType<typeof setupAccount>>;

async function eventsOf(accountId: number, type: string) {
  return getDb()
    .select()
    .from(schema.domainEvents)
    .where(and(eq(schema.domainEvents.accountId, accountId), eq(schema.domainEvents.type, type))).orderBy(schema.domainEvents.id);
}

/** The form as the page posts it: the 7-day table, Monday to Friday open 09:00–18:00. */
function hoursForm(over: Record<string, string> = {}) {
  const form: Record<string, string> = { intent: 'save', name: 'Paris office', timezone: 'Europe/Paris' };
  for (let d = 0; d < 7; d++) {
    if (d >= 1 && d <= 5) form[`days[${d}].open`] = 'on';
    form[`days[${d}].periods[0].startTime`] = '09:00';
    form[`days[${d}].periods[0].endTime`] = '18:00';
  }
  return { ...form, ...over };
}

/** The text of the flash toast a redirect sets. */
function toastOf(res: { headers: Record<string, string | string[] | undefined> }) {
  const cookie = String(res.headers['set-cookie']);
  const value = /__parley_toast=([^.;]+)/.exec(cookie)?.[1] ?? '';
  const flash = JSON.parse(Buffer.from(decodeURIComponent(value), 'base64').toString('utf8')) as Record<string, { text: string }>;
  return Object.values(flash)[0]?.text;
}

const post = (a: Account, path: string, form: Record<string, string>) => app.request(path, { domain: a.domain, cookie: a.ownerCookie, form });

const sample = (a: Account, name = 'Support hours') =>
  createBusinessHours({
    accountId: a.account.id,
    actorId: a.owner.id,
    name,
    timezone: 'Europe/Paris',
    allDay: false,
    haveHolidays: false,
    timings: [{ day: 1, startTime: '09:00', endTime: '18:00' }],
    holidays: [],
  });

describe('business hours pages', () => {
  it('creates, updates and deletes through the routes, with the toasts and events', async () => {
    const a = await setupAccount();
    const form = hoursForm({
      'days[1].periods[1].startTime': '19:00',
      'days[1].periods[1].endTime': '21:00',
      haveHolidays: 'on',
      'holidays[0].name': 'Christmas',
      'holidays[0].dateVal': '2026-12-25',
    });
    const created = await post(a, `${PATH}/new`, form);
    expect(created.status).toBe(302);
    expect(created.headers.location).toBe(PATH);
    expect(toastOf(created)).toBe('Business Hours Created');
    const { rows } = await listBusinessHours({ accountId: a.account.id });
    expect(rows).toHaveLength(1);
    const hours = rows[0];
    expect(hours).toMatchObject({ name: 'Paris office', timezone: 'Europe/Paris', allDay: false, haveHolidays: true, holidays: [{ name: 'Christmas', dateVal: '2026-12-25' }] });
    expect(hours.timings).toEqual([
      { day: 1, startTime: '09:00', endTime: '18:00' },
      { day: 1, startTime: '19:00', endTime: '21:00' },
      ...[2, 3, 4, 5].map((day) => ({ day, startTime: '09:00', endTime: '18:00' })),
    ]);
    expect(await eventsOf(a.account.id, 'business_hours_created')).toHaveLength(1);

    const list = await app.request(PATH, { domain: a.domain, cookie: a.ownerCookie });
    expect(list.status).toBe(200);
    expect(list.text).toContain('Paris office');
    const page = await app.request(`${PATH}/${hours.id}`, { domain: a.domain, cookie: a.ownerCookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain('value="Christmas"');
    expect(page.text).toContain('value="19:00"');

    const updated = await post(a, `${PATH}/${hours.id}`, hoursForm({ name: 'Around the clock', allDay: 'on', timezone: 'America/New_York' }));
    expect(updated.status).toBe(302);
    expect(toastOf(updated)).toBe('Business Hours Updated');
    expect(await getBusinessHours({ accountId: a.account.id, id: hours.id })).toMatchObject({ name: 'Around the clock', allDay: true, timezone: 'America/New_York', haveHolidays: false });
    const [updateEvent] = await eventsOf(a.account.id, 'business_hours_updated');
    expect(updateEvent.payload).toMatchObject({ changed: expect.arrayContaining(['name', 'timezone', 'allDay', 'haveHolidays', 'timings']) });

    // An inbox using these hours falls back to none when they are deleted.
    const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: `support@${a.domain}.test` });
    expect(await getInboxBusinessHours({ accountId: a.account.id, inboxId: inbox.id })).toBeNull();
    await getDb().update(schema.inboxes).set({ businessHoursId: hours.id }).where(eq(schema.inboxes.id, inbox.id));
    expect(await getInboxBusinessHours({ accountId: a.account.id, inboxId: inbox.id })).toMatchObject({ timezone: 'America/New_York', allDay: true });
    // Another account cannot read them through the inbox id.
    const other = await setupAccount();
    expect(await getInboxBusinessHours({ accountId: other.account.id, inboxId: inbox.id })).toBeNull();
    const deleted = await post(a, `${PATH}/${hours.id}`, { intent: 'delete' });
    expect(deleted.status).toBe(302);
    expect(toastOf(deleted)).toBe('Business Hours Deleted');
    expect(await getBusinessHours({ accountId: a.account.id, id: hours.id })).toBeUndefined();
    expect(await eventsOf(a.account.id, 'business_hours_deleted')).toHaveLength(1);
    const [after] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.id, inbox.id));
    expect(after.businessHoursId).toBeNull();

    expect((await post(a, `${PATH}/${hours.id}`, { intent: 'frobnicate' })).status).toBe(400);
    expect((await app.request(`${PATH}/abc`, { domain: a.domain, cookie: a.ownerCookie })).status).toBe(404);
  });

  it('shows the defaults on create: Monday to Friday checked, 09:00 to 18:00', async () => {
    const a = await setupAccount();
    const page = await app.request(`${PATH}/new`, { domain: a.domain, cookie: a.ownerCookie });
    expect(page.status).toBe(200);
    const checked = [...page.text.matchAll(/<input[^>]*name="days\[(\d)\]\.open"[^>]*>/g)].filter((m) => m[0].includes('checked')).map((m) => Number(m[1]));
    expect(checked).toEqual([1, 2, 3, 4, 5]);
    expect(page.text).toContain('name="days[1].periods[0].startTime" value="09:00"'.split(' ')[0]);
    expect((page.text.match(/value="18:00"/g) ?? []).length).toBe(7);
  });

  it('answers bad input with 400, the specification\'s messages and the typed values', async () => {
    const a = await setupAccount();
    const endBefore = await post(a, `${PATH}/new`, hoursForm({ name: 'Late shift', 'days[2].periods[0].startTime': '17:00', 'days[2].periods[0].endTime': '08:30' }));
    expect(endBefore.status).toBe(400);
    expect(endBefore.text).toContain('End time cannot be before start time');
    expect(endBefore.text).toContain('value="Late shift"');
    expect(endBefore.text).toContain('value="08:30"');

    const noTimezone = await post(a, `${PATH}/new`, hoursForm({ timezone: '' }));
    expect(noTimezone.status).toBe(400);
    expect(noTimezone.text).toContain('Choose a time zone');
    const badTimezone = await post(a, `${PATH}/new`, hoursForm({ timezone: 'Mars/Olympus' }));
    expect(badTimezone.status).toBe(400);

    const holidayNoName = await post(a, `${PATH}/new`, hoursForm({ haveHolidays: 'on', 'holidays[0].name': '', 'holidays[0].dateVal': '2026-12-25' }));
    expect(holidayNoName.status).toBe(400);
    expect(holidayNoName.text).toContain('Holiday Name is not allowed to be empty');
    expect(holidayNoName.text).toContain('value="2026-12-25"');
    const holidayLong = await post(a, `${PATH}/new`, hoursForm({ haveHolidays: 'on', 'holidays[0].name': 'x'.repeat(21), 'holidays[0].dateVal': '2026-12-25' }));
    expect(holidayLong.status).toBe(400);
    expect(holidayLong.text).toContain('Length must be less than or equal to 20 characters');
    const holidayBadDate = await post(a, `${PATH}/new`, hoursForm({ haveHolidays: 'on', 'holidays[0].name': 'Nope', 'holidays[0].dateVal': '2026-02-30' }));
    expect(holidayBadDate.status).toBe(400);

    const noName = await post(a, `${PATH}/new`, hoursForm({ name: '' }));
    expect(noName.status).toBe(400);
    expect(noName.text).toContain('Name is not allowed to be empty');

    const noDay: Record<string, string> = hoursForm();
    for (let d = 1; d <= 5; d++) delete noDay[`days[${d}].open`];
    const closed = await post(a, `${PATH}/new`, noDay);
    expect(closed.status).toBe(400);
    expect(closed.text).toContain('Choose at least one day, or 24x7');

    // Hidden parts are not judged: bad times under 24x7, a nameless holiday with holidays off.
    const allDay = await post(a, `${PATH}/new`, hoursForm({ allDay: 'on', 'days[1].periods[0].endTime': '08:00', 'holidays[0].name': '', 'holidays[0].dateVal': '' }));
    expect(allDay.status).toBe(302);
    expect((await listBusinessHours({ accountId: a.account.id })).total).toBe(1);
    expect(await eventsOf(a.account.id, 'business_hours_created')).toHaveLength(1);
  });

  it('adds and removes rows without saving, keeping the draft (no JavaScript)', async () => {
    const a = await setupAccount();
    const addPeriod = await post(a, `${PATH}/new`, {
      ...hoursForm({ name: 'Draft' }),
      intent: '',
      __intent__: JSON.stringify({ type: 'insert', payload: { name: 'days[3].periods', defaultValue: { startTime: '09:00', endTime: '18:00' } } }),
    });
    expect(addPeriod.status).toBe(200);
    expect(addPeriod.text).toContain('value="Draft"');
    expect(addPeriod.text).toContain('name="days[3].periods[1].startTime"');
    const addHoliday = await post(a, `${PATH}/new`, {
      ...hoursForm({ name: 'Draft', haveHolidays: 'on' }),
      __intent__: JSON.stringify({ type: 'insert', payload: { name: 'holidays', defaultValue: { name: '', dateVal: '' } } }),
    });
    expect(addHoliday.status).toBe(200);
    expect(addHoliday.text).toContain('name="holidays[0].name"');
    const garbage = await post(a, `${PATH}/new`, { ...hoursForm(), __intent__: 'not json' });
    expect(garbage.status).toBe(400);
    expect((await listBusinessHours({ accountId: a.account.id })).total).toBe(0);
  });

  it("never shows or changes another account's business hours", async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    const hours = await sample(a, 'Only for A');
    expect((await app.request(`${PATH}/${hours.id}`, { domain: b.domain, cookie: b.ownerCookie })).status).toBe(404);
    expect((await post(b, `${PATH}/${hours.id}`, hoursForm({ name: 'Stolen' }))).status).toBe(404);
    expect((await post(b, `${PATH}/${hours.id}`, { intent: 'delete' })).status).toBe(404);
    const list = await app.request(PATH, { domain: b.domain, cookie: b.ownerCookie });
    expect(list.text).not.toContain('Only for A');
    expect(await getBusinessHours({ accountId: a.account.id, id: hours.id })).toMatchObject({ name: 'Only for A' });
    expect(await getBusinessHours({ accountId: b.account.id, id: hours.id })).toBeUndefined();
  });

  it('without manage_business_hours the pages are readable but locked, and posts are refused with 403', async () => {
    const a = await setupAccount();
    const hours = await sample(a, 'Locked hours');
    const list = await app.request(PATH, { domain: a.domain, cookie: a.viewerCookie });
    expect(list.status).toBe(200);
    expect(list.text).toContain('Locked hours');
    expect(list.text).toContain('data-testid="locked-note"');
    const page = await app.request(`${PATH}/${hours.id}`, { domain: a.domain, cookie: a.viewerCookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain(ROLE_LOCKED_MESSAGE.replace("'", '&#x27;'));
    for (const form of [hoursForm({ name: 'Changed' }), { intent: 'delete' }]) {
      expect((await app.request(`${PATH}/${hours.id}`, { domain: a.domain, cookie: a.viewerCookie, form })).status).toBe(403);
    }
    expect((await app.request(`${PATH}/new`, { domain: a.domain, cookie: a.viewerCookie, form: hoursForm() })).status).toBe(403);
    expect(await getBusinessHours({ accountId: a.account.id, id: hours.id })).toMatchObject({ name: 'Locked hours' });
  });
});
