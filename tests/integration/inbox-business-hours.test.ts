import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createBusinessHours } from '../../app/models/automation/business-hours.server';
import { applySla } from '../../app/models/automation/sla.server';
import { createFacebookInbox } from '../../app/models/channels/facebook.server';
import { createSmsInbox } from '../../app/models/channels/sms.server';
import { createTwitterInbox } from '../../app/models/channels/twitter.server';
import { createEmailInbox } from '../../app/models/email/email-inboxes.server';
import { openConversation } from '../../app/models/inbox/conversations.server';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-inbox-hours-'));
process.env.PARLEY_DATA_DIR = dataDir;

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('business hours on an email inbox', () => {
  it('are chosen on the inbox settings page without JavaScript, and the SLA due time follows them', async () => {
    const { account, owner, domain } = await createTestAccount();
    const cookie = await sessionCookie({ domain, accountId: account.id, userId: owner.id });
    const inbox = await createEmailInbox({ accountId: account.id, actorId: owner.id, name: 'Support', email: `hours-${account.id}@example.test`, mode: 'forwarding' });
    const hours = await createBusinessHours({
      accountId: account.id,
      actorId: owner.id,
      name: 'Berlin office',
      timezone: 'Europe/Berlin',
      allDay: false,
      haveHolidays: false,
      timings: [1, 2, 3, 4, 5].map((day) => ({ day, startTime: '09:00', endTime: '17:00' })),
      holidays: [],
    });
    await getDb()
      .insert(schema.slaPolicies)
      .values({ accountId: account.id, name: 'Standard', targets: (['critical', 'high', 'medium', 'low', 'default'] as const).map((priority) => ({ priority, response: { value: 2, unit: 'hour' as const }, resolve: { value: 1, unit: 'day' as const } })) });

    // The page offers the account's hours; choosing them saves on the inbox.
    const page = await app.request(`/settings/emails/${inbox.id}`, { domain, cookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Berlin office');
    const saved = await app.request(`/settings/emails/${inbox.id}`, { domain, cookie, form: { intent: 'hours', businessHoursId: String(hours.id) } });
    expect(saved.status).toBe(302);
    const [row] = await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.id, inbox.id));
    expect(row.businessHoursId).toBe(hours.id);
    // Another account's (or no such) hours are refused with a field error, not a 500.
    const bad = await app.request(`/settings/emails/${inbox.id}`, { domain, cookie, form: { intent: 'hours', businessHoursId: '999999' } });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Choose business hours from the list');

    // Friday 20 November 2026, 16:30 in Berlin (15:30 UTC): half an hour left that day, then Monday from 09:00.
    const { conversation } = await openConversation({
      accountId: account.id,
      inboxId: inbox.id,
      sourceType: 'email',
      subject: 'Order missing',
      contact: { email: 'late@example.com', name: 'Lee Late' },
      message: { kind: 'incoming', text: 'Hello?', createdAt: new Date('2026-11-20T15:30:00Z') },
    });
    await applySla({ accountId: account.id, conversationId: conversation.id });
    const [c] = await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, conversation.id));
    // 2 open hours: Friday 16:30–17:00, then Monday 09:00–10:30 Berlin (CET, UTC+1) = 09:30 UTC.
    expect(c.firstResponseDueAt?.toISOString()).toBe('2026-11-23T09:30:00.000Z');

    // Back to around the clock: a new conversation is due two hours after it came in.
    expect((await app.request(`/settings/emails/${inbox.id}`, { domain, cookie, form: { intent: 'hours', businessHoursId: '' } })).status).toBe(302);
    const { conversation: second } = await openConversation({
      accountId: account.id,
      inboxId: inbox.id,
      sourceType: 'email',
      subject: 'Another',
      contact: { email: 'late@example.com', name: 'Lee Late' },
      message: { kind: 'incoming', text: 'Hi', createdAt: new Date('2026-11-20T15:30:00Z') },
    });
    await applySla({ accountId: account.id, conversationId: second.id });
    const [d] = await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, second.id));
    expect(d.firstResponseDueAt?.toISOString()).toBe('2026-11-20T17:30:00.000Z');
  });
});

const WEEKDAYS = [1, 2, 3, 4, 5].map((day) => ({ day, startTime: '09:00', endTime: '17:00' }));
const hoursOf = (accountId: number, actorId: number, name: string) =>
  createBusinessHours({ accountId, actorId, name, timezone: 'Europe/Berlin', allDay: false, haveHolidays: false, timings: WEEKDAYS, holidays: [] });
const businessHoursIdOf = async (inboxId: number) => (await getDb().select().from(schema.inboxes).where(eq(schema.inboxes.id, inboxId)))[0].businessHoursId;

describe('business hours on SMS, Facebook and X inboxes', () => {
  it('are chosen on each inbox page without JavaScript; bad or foreign hours and other channels are refused', async () => {
    const { account, owner, domain } = await createTestAccount();
    const cookie = await sessionCookie({ domain, accountId: account.id, userId: owner.id });
    const who = { accountId: account.id, actorId: owner.id, publicBase: `http://${domain}` };
    const other = await createTestAccount();
    const ours = await hoursOf(account.id, owner.id, 'Lisbon desk');
    const theirs = await hoursOf(other.account.id, other.owner.id, 'Someone else');
    const sms = await createSmsInbox({
      ...who,
      input: { name: 'Texts', provider: 'twilio', accountSID: 'AC0123', sid: 'AC0123', authToken: 'token', phoneNumber: '+15005550006', threadingInterval: 1, autoResolvedDays: 0, assigneeIds: [owner.id] },
    });
    const facebook = await createFacebookInbox({ ...who, input: { name: 'Our page', pageId: '1122334455', pageAccessToken: 'page-token', appSecret: 'app-secret' } });
    const twitter = await createTwitterInbox({ ...who, input: { name: 'Our X', userId: '998877', consumerSecret: 'consumer', accessToken: 'access' } });

    for (const [path, inbox] of [
      ['/settings/sms', sms],
      ['/settings/facebook', facebook],
      ['/settings/twitter', twitter],
    ] as const) {
      const url = `${path}/${inbox.id}`;
      const page = await app.request(url, { domain, cookie });
      expect(page.status, url).toBe(200);
      expect(page.text, url).toContain('Lisbon desk');
      expect(page.text, url).toContain('value="hours"');
      expect(page.text, url).not.toContain('Someone else');

      const saved = await app.request(url, { domain, cookie, form: { intent: 'hours', businessHoursId: String(ours.id) } });
      expect(saved.status, url).toBe(302);
      expect(saved.headers.location, url).toBe(url);
      expect(await businessHoursIdOf(inbox.id), url).toBe(ours.id);

      // A value that is no id, and another account's hours: 400 with the message, nothing changed.
      const bad = await app.request(url, { domain, cookie, form: { intent: 'hours', businessHoursId: 'abc' } });
      expect(bad.status, url).toBe(400);
      const foreign = await app.request(url, { domain, cookie, form: { intent: 'hours', businessHoursId: String(theirs.id) } });
      expect(foreign.status, url).toBe(400);
      expect(foreign.text, url).toContain('Choose business hours from the list');
      expect(await businessHoursIdOf(inbox.id), url).toBe(ours.id);

      // Back to around the clock.
      expect((await app.request(url, { domain, cookie, form: { intent: 'hours', businessHoursId: '' } })).status, url).toBe(302);
      expect(await businessHoursIdOf(inbox.id), url).toBeNull();
    }

    // Each page sets only its own channel's inboxes: an X inbox through the Facebook page is not found.
    expect((await app.request(`/settings/facebook/${twitter.id}`, { domain, cookie, form: { intent: 'hours', businessHoursId: String(ours.id) } })).status).toBe(404);
    expect((await app.request(`/settings/sms/${facebook.id}`, { domain, cookie, form: { intent: 'hours', businessHoursId: String(ours.id) } })).status).toBe(404);
    expect(await businessHoursIdOf(twitter.id)).toBeNull();
    // An agent (no manage_sms / manage_facebook / manage_twitter) is refused by each page's own guard.
    const agent = await createTestUser({ accountId: account.id, roleKind: 'agent' });
    const agentCookie = await sessionCookie({ domain, accountId: account.id, userId: agent.id });
    for (const url of [`/settings/sms/${sms.id}`, `/settings/facebook/${facebook.id}`, `/settings/twitter/${twitter.id}`]) {
      expect((await app.request(url, { domain, cookie: agentCookie, form: { intent: 'hours', businessHoursId: String(ours.id) } })).status, url).toBe(403);
    }
    expect(await businessHoursIdOf(sms.id)).toBeNull();
    // Another account's admin cannot reach these inboxes at all.
    const otherCookie = await sessionCookie({ domain: other.domain, accountId: other.account.id, userId: other.owner.id });
    expect((await app.request(`/settings/twitter/${twitter.id}`, { domain: other.domain, cookie: otherCookie, form: { intent: 'hours', businessHoursId: String(theirs.id) } })).status).toBe(404);
    expect(await businessHoursIdOf(twitter.id)).toBeNull();
  });
});
