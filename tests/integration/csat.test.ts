import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { csatResults } from '../../app/models/csat/csat.server';
import { setConversationStatus } from '../../app/models/inbox/conversations.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { drainEvents, lastEventId } from '../helpers/engine';
import { customerConversation, mailAccount, useMailSuite } from '../helpers/mail-suite';
import { postMultipart } from '../helpers/multipart';

const suite = useMailSuite();

async function setup() {
  const a = await mailAccount();
  const unverified = await createInbox({ ...a.who, name: 'Unverified', channelType: 'email' });
  const web = await createInbox({ ...a.who, name: 'Website chat', channelType: 'web' });
  return { ...a, unverified, web };
}

const conversation = (s: Awaited<ReturnType<typeof setup>>, inboxId: number, email: string) => customerConversation(s, { inboxId, email, chat: inboxId === s.web.id });

describe('customer satisfaction', () => {
  it('email survey settings: the specification messages, only verified email inboxes, then one rating email per resolved conversation; a low rating asks a comment; the rating reaches survey_received and the results', async () => {
    const s = await setup();
    const other = await setup();
    const form = await suite.app.request('/settings/email-survey/new', { domain: s.domain, cookie: s.cookie });
    expect(form.status).toBe(200);
    expect(form.text).toContain('Support mail');
    expect(form.text).not.toContain('Unverified');
    const refused = await suite.app.request('/settings/email-survey/new', { domain: s.domain, cookie: s.cookie, form: { intent: 'save', subject: 'x'.repeat(41) } });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Please select at least one inbox');
    expect(refused.text).toContain('Subject must be 40 characters or less');
    expect(refused.text).toContain('x'.repeat(41));
    // Another account's inbox, or an unverified one, is refused.
    const foreign = await suite.app.request('/settings/email-survey/new', { domain: s.domain, cookie: s.cookie, form: { intent: 'save', subject: 'Rate us', inboxIds: String(other.mail.id) } });
    expect(foreign.status).toBe(400);
    const created = await suite.app.request('/settings/email-survey/new', {
      domain: s.domain,
      cookie: s.cookie,
      form: { intent: 'save', subject: 'How did we do, {{NAME}}?', heading: 'Rate our reply', inboxIds: String(s.mail.id), commentEnabled: 'on', commentEnabledBelow: '3' },
    });
    expect(created.status).toBe(302);
    const [survey] = await getDb().select().from(schema.csatSurveys).where(eq(schema.csatSurveys.accountId, s.account.id));
    expect(survey).toMatchObject({ kind: 'email', inboxIds: [s.mail.id], finishText: 'Thank you for your valuable feedback', ratingsType: 'star', allowMultipleFeedback: false });

    // The logo (issue 15): png/jpg/jpeg under 2 MB, sniffed, through the survey builder's checks; shown in the preview and the email.
    const edit = `/settings/email-survey/${survey.id}`;
    const logo = (filename: string, bytes: Buffer, intent = 'logo-upload') => postMultipart(suite.app.port, edit, { domain: s.domain, cookie: s.cookie, fields: { intent }, files: [{ name: 'logo', filename, bytes }] });
    const fake = await logo('fake.png', Buffer.from('not an image'));
    expect(fake.status).toBe(400);
    expect(fake.text).toContain('Only png, jpg and jpeg images can be uploaded.');
    expect((await logo('big.png', Buffer.alloc(2 * 1024 * 1024))).text).toContain('File size must be less than 2mb.');
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
    expect((await logo('logo.png', png)).status).toBe(302);
    const logoPath = `/csat/logo/${s.account.id}/${survey.id}`;
    const shown = await suite.app.request(edit, { domain: s.domain, cookie: s.cookie });
    expect(shown.text).toContain('Email preview');
    expect(shown.text).toMatch(new RegExp(`srcDoc="[^"]*${logoPath.replace(/\//g, '\\/')}`, 'i'));
    const served = await suite.app.request(logoPath, { domain: s.domain });
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect((await suite.app.request(logoPath, { domain: other.domain })).status).toBe(404);
    // Another account cannot change it.
    expect((await postMultipart(suite.app.port, edit, { domain: other.domain, cookie: other.cookie, fields: { intent: 'logo-remove' } })).status).toBe(404);

    const id = await conversation(s, s.mail.id, 'cleo@example.test');
    const after = await lastEventId(s.account.id);
    await setConversationStatus({ ...s.who, ids: [id], status: 'resolved' });
    await drainEvents(s.account.id, { after });
    expect(suite.received).toHaveLength(1);
    const mail = suite.received[0].mail;
    expect(mail.subject).toMatch(/^How did we do, cleo\?$/i);
    expect(mail.from?.value[0].address).toBe(`support@${s.domain}.example.test`);
    expect(String(mail.html)).toContain(`${logoPath}?v=`);
    const links = [...String(mail.html).matchAll(/href="([^"]+\?r=(\d))"/g)].map((m) => new URL(m[1].replace(/&amp;/g, '&')));
    expect(links.map((l) => l.searchParams.get('r'))).toEqual(['1', '2', '3', '4', '5']);
    // Reopened and resolved again: not asked twice.
    const again = await lastEventId(s.account.id);
    await setConversationStatus({ ...s.who, ids: [id], status: 'open' });
    await setConversationStatus({ ...s.who, ids: [id], status: 'resolved' });
    await drainEvents(s.account.id, { after: again });
    expect(suite.received).toHaveLength(1);

    // The other account's host does not know the link.
    expect((await suite.app.request(`${links[1].pathname}${links[1].search}`, { domain: other.domain })).status).toBe(404);
    // A workflow on Survey received acts on a bad rating.
    await getDb()
      .insert(schema.automationRules)
      .values({
        accountId: s.account.id,
        kind: 'workflow',
        name: 'Low CSAT',
        event: 'survey_received',
        conditions: [{ field: 'rating', op: 'below', value: '3' }],
        conditionOperator: 'and',
        filters: [],
        actions: [{ type: 'leave_note', note: 'Unhappy customer, call back' }],
        sources: [],
        isActive: true,
      } as never);
    const beforeRating = await lastEventId(s.account.id);
    const rated = await suite.app.request(`${links[1].pathname}${links[1].search}`, { domain: s.domain });
    expect(rated.status).toBe(302);
    await drainEvents(s.account.id, { after: beforeRating });
    const notes = await getDb().select().from(schema.messages).where(and(eq(schema.messages.conversationId, id), eq(schema.messages.kind, 'note')));
    expect(notes.map((n) => n.text)).toContain('Unhappy customer, call back');
    const page = await suite.app.request(links[1].pathname, { domain: s.domain });
    expect(page.text).toContain('Can you tell us more about your experience?');
    const empty = await suite.app.request(links[1].pathname, { domain: s.domain, form: { intent: 'comment', comment: ' ' } });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('Please write a comment');
    expect((await suite.app.request(links[1].pathname, { domain: s.domain, form: { intent: 'comment', comment: 'It took a week' } })).status).toBe(302);
    const done = await suite.app.request(links[1].pathname, { domain: s.domain });
    expect(done.text).toContain('Thank you for your valuable feedback');
    const [rating] = await getDb().select().from(schema.csatRatings).where(eq(schema.csatRatings.conversationId, id));
    expect(rating).toMatchObject({ rating: 2, comment: 'It took a week', kind: 'email' });
    const events = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, s.account.id), eq(schema.domainEvents.type, 'survey_received'))).orderBy(schema.domainEvents.id);
    expect(events.map((e) => e.payload)).toEqual([expect.objectContaining({ kind: 'csat', channel: 'email', rating: 2, conversationId: id })]);
    const results = await csatResults({ accountId: s.account.id, from: new Date(Date.now() - 86_400_000), to: new Date(Date.now() + 86_400_000), by: 'inbox' });
    expect(results).toMatchObject({ total: 1, csat: 0, rows: [{ key: 'Support mail', ratings: 1, average: 2 }] });
    // Periods by week (from Monday) and month, cut in the given zone.
    const [ratedRow] = await getDb().select({ at: schema.csatRatings.ratedAt }).from(schema.csatRatings).where(eq(schema.csatRatings.accountId, s.account.id));
    const zone = 'Pacific/Kiritimati';
    const localDay = new Intl.DateTimeFormat('sv-SE', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(ratedRow!.at!);
    const monday = new Date(Date.parse(`${localDay}T00:00:00Z`) - ((new Date(`${localDay}T00:00:00Z`).getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10);
    const span = { accountId: s.account.id, from: new Date(Date.now() - 3 * 86_400_000), to: new Date(Date.now() + 3 * 86_400_000), timezone: zone };
    expect((await csatResults({ ...span, by: 'day' })).rows.map((x) => x.key)).toEqual([localDay]);
    expect((await csatResults({ ...span, by: 'week' })).rows.map((x) => x.key)).toEqual([monday]);
    expect((await csatResults({ ...span, by: 'month' })).rows.map((x) => x.key)).toEqual([localDay.slice(0, 7)]);
    // The screen cuts days in the account's default time zone, as analytics does (ADR 094).
    await getDb().update(schema.accounts).set({ settings: sql`coalesce(${schema.accounts.settings}, '{}'::jsonb) || ${JSON.stringify({ defaultTimezone: zone })}::jsonb` }).where(eq(schema.accounts.id, s.account.id));
    const byDay = await suite.app.request(`/settings/email-survey?by=day&from=${localDay}&to=${localDay}`, { domain: s.domain, cookie: s.cookie });
    expect(byDay.text).toContain(`>${localDay}<`);
    const byMonth = await suite.app.request('/settings/email-survey?by=month', { domain: s.domain, cookie: s.cookie });
    expect(byMonth.text).toContain('<th scope="col">Month</th>');
    expect((await csatResults({ accountId: other.account.id, from: new Date(0), to: new Date(Date.now() + 86_400_000), by: 'agent' })).total).toBe(0);
    // The agent sees the rating on the conversation.
    const conv = await suite.app.request(`/inbox/${id}`, { domain: s.domain, cookie: s.cookie });
    expect(conv.text).toContain('2 / 5');
    expect(conv.text).toContain('It took a week');
    const list = await suite.app.request('/settings/email-survey', { domain: s.domain, cookie: s.cookie });
    expect(list.text).toContain('How did we do, {{NAME}}?');
  });

  it('chat survey: web inboxes only; a resolved chat gets the rating link as a message', async () => {
    const s = await setup();
    const created = await suite.app.request('/settings/chat-survey/new', { domain: s.domain, cookie: s.cookie, form: { intent: 'save', subject: 'Rate this chat', inboxIds: String(s.web.id), ratingsType: 'emoji' } });
    expect(created.status).toBe(302);
    const refused = await suite.app.request('/settings/chat-survey/new', { domain: s.domain, cookie: s.cookie, form: { intent: 'save', subject: 'Mail', inboxIds: String(s.mail.id) } });
    expect(refused.status).toBe(400);
    const id = await conversation(s, s.web.id, 'vis@example.test');
    const after = await lastEventId(s.account.id);
    await setConversationStatus({ ...s.who, ids: [id], status: 'resolved' });
    await drainEvents(s.account.id, { after });
    const messages = await getDb().select().from(schema.messages).where(eq(schema.messages.conversationId, id));
    const ask = messages.find((m) => m.text.startsWith('Rate this chat'));
    expect(ask?.kind).toBe('outgoing');
    const link = /\/csat\/\d+\/[0-9a-f]{48}/.exec(ask!.text)![0];
    const page = await suite.app.request(link, { domain: s.domain });
    expect(page.text).toContain('Very happy');
    expect((await suite.app.request(link, { domain: s.domain, form: { intent: 'rate', rating: '5' } })).status).toBe(302);
    const [rating] = await getDb().select().from(schema.csatRatings).where(eq(schema.csatRatings.conversationId, id));
    expect(rating).toMatchObject({ kind: 'chat', rating: 5 });
  });
});
