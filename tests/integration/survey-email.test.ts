import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createContact } from '../../app/models/crm/contacts.server';
import { createTag } from '../../app/models/productivity/tags.server';
import {
  markSurveyBounces,
  nextOccurrence,
  ruleText,
  runEmailOccurrence,
  runEmailSend,
  saveEmailSchedule,
  uploadRecipientList,
} from '../../app/models/surveys/email-surveys.server';
import { EmailScheduleSchema, RecipientListSchema } from '../../app/models/surveys/email-schemas';
import { SurveyInputError } from '../../app/models/surveys/folders.server';
import { publishSurvey, updateSurvey } from '../../app/models/surveys/surveys.server';
import { QUEUES } from '../../app/utils/jobs.server';
import { createTestAccount } from '../factories';
import { sessionCookie } from '../helpers/http';
import { useMailSuite } from '../helpers/mail-suite';
import { postMultipart } from '../helpers/multipart';
import { publishedSurvey } from '../helpers/surveys';

const suite = useMailSuite();

async function setup() {
  const a = await createTestAccount();
  const who = { accountId: a.account.id, actorId: a.owner.id };
  const tag = await createTag({ ...who, name: 'VIP', color: 'blue' as never });
  const other = await createTag({ ...who, name: 'Other', color: 'blue' as never });
  for (const [first, email, tagIds] of [
    ['Ada', 'ada@example.test', [tag.id]],
    ['Bob', 'bob@example.test', [tag.id, other.id]],
    ['Cy', 'cy@example.test', [other.id]],
    ['Dee', 'dee@example.test', [tag.id]],
  ] as const) {
    await createContact({ ...who, input: { firstName: first, email, tagIds: [...tagIds] } });
  }
  return { ...a, who, tag, other };
}

async function emailSurvey(a: Awaited<ReturnType<typeof setup>>, target: Record<string, unknown>, publish = true) {
  const made = await publishedSurvey({ ...a.who, channel: 'email', subType: 'nps', types: ['text'], target, publish: false });
  await updateSurvey({
    ...a.who,
    id: made.survey.id,
    patch: { design: { ...made.survey.design, sendFrom: 'support@example.test', subject: 'Hi {{NAME}}, how did we do?', header: 'Dear {{NAME}}' } },
    step: 'design',
  });
  if (publish) await publishSurvey({ ...a.who, id: made.survey.id });
  return made.survey;
}

/** The timer job publish enqueued, run as the engine would. */
async function runScheduled(accountId: number, surveyId: number) {
  const jobs = await getDb().execute<{ data: { generation: number; at: string } }>(
    sql`select data from pgboss.job where name = ${QUEUES.surveyEmailOccurrence} and data->>'surveyId' = ${String(surveyId)} order by created_on`,
  );
  const job = [...jobs].at(-1)!;
  const occ = await runEmailOccurrence({ accountId, surveyId, generation: job.data.generation, at: job.data.at });
  return occ as { sendId: number; next: string | null };
}

const recipients = (surveyId: number) =>
  getDb().select().from(schema.surveyEmailRecipients).where(eq(schema.surveyEmailRecipients.surveyId, surveyId)).orderBy(schema.surveyEmailRecipients.email);

describe('email surveys', () => {
  it('sends to the contacts of the chosen tags once each, from the chosen sender, with the first question, placeholders and one-click unsubscribe', async () => {
    const a = await setup();
    const b = await setup(); // another account with the same addresses and tag name
    await getDb().insert(schema.emailSuppressions).values({ accountId: a.account.id, email: 'dee@example.test', reason: 'unsubscribed' });
    const survey = await emailSurvey(a, { tagIds: [a.tag.id] });
    const occ = await runScheduled(a.account.id, survey.id);
    expect(occ.next).toBeNull();
    const sent = await runEmailSend({ accountId: a.account.id, sendId: occ.sendId });
    expect(sent).toEqual({ done: true, sent: 2 });
    expect(suite.received.map((r) => r.to[0]).sort()).toEqual(['ada@example.test', 'bob@example.test']);
    const ada = suite.received.find((r) => r.to[0] === 'ada@example.test')!;
    expect(ada.mail.subject).toBe('Hi Ada, how did we do?');
    expect(ada.mail.from?.text).toBe('support@example.test');
    expect(ada.raw).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(ada.raw).toMatch(/List-Unsubscribe:\s+<http:\/\/[^>]+\/survey\/unsubscribe\//);
    expect(String(ada.mail.html)).toContain('Dear Ada');
    expect(ada.mail.text).toContain('/survey/email/');
    // Eleven NPS links, 0 to 10.
    expect([...String(ada.mail.html).matchAll(/\?a=(\d+)/g)].map((m) => m[1])).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
    // Never twice: the job again, the occurrence again.
    expect(await runEmailSend({ accountId: a.account.id, sendId: occ.sendId })).toEqual({ done: true, sent: 0 });
    const again = await runEmailOccurrence({ accountId: a.account.id, surveyId: survey.id, generation: 1, at: (await getDb().select().from(schema.surveyEmailSends).where(eq(schema.surveyEmailSends.id, occ.sendId)))[0].occurrenceAt.toISOString() });
    expect(again).toEqual({ skipped: 'already sent' });
    expect(suite.received).toHaveLength(2);
    // The other account's contacts were not reached, nor its rows written.
    expect(await recipients(survey.id)).toHaveLength(2);
    expect((await getDb().select().from(schema.surveyEmailRecipients).where(eq(schema.surveyEmailRecipients.accountId, b.account.id))).length).toBe(0);

    // The open pixel is the campaigns' one (/c/o/, signed): Bob's loads mark him opened; an altered token counts nothing.
    const rows = await recipients(survey.id);
    const bob = suite.received.find((r) => r.to[0] === 'bob@example.test')!;
    const pixel = /src="https?:\/\/[^/"]+(\/c\/o\/[^"]+)"/.exec(String(bob.mail.html))![1];
    const forged = await suite.app.request(`${pixel.slice(0, -3)}AAA`, { domain: a.domain });
    expect(forged.headers['content-type']).toBe('image/gif');
    expect((await recipients(survey.id)).find((r) => r.email === 'bob@example.test')!.status).toBe('sent');
    expect((await suite.app.request(pixel, { domain: a.domain })).headers['content-type']).toBe('image/gif');
    const bobOpened = (await recipients(survey.id)).find((r) => r.email === 'bob@example.test')!;
    expect(bobOpened.status).toBe('opened');
    expect(bobOpened.openedAt).not.toBeNull();

    // The personal link: a score clicked records the first answer, the page asks the rest, Submit completes.
    const adaRow = rows.find((r) => r.email === 'ada@example.test')!;
    const path = `/survey/email/${a.account.id}/${adaRow.token}`;
    const wrongHost = await suite.app.request(`${path}?a=9`, { domain: b.domain });
    expect(wrongHost.status).toBe(404);
    const click = await suite.app.request(`${path}?a=9`, { domain: a.domain });
    expect(click.status).toBe(302);
    expect((await recipients(survey.id)).find((r) => r.id === adaRow.id)!.status).toBe('opened');
    const page = await suite.app.request(path, { domain: a.domain });
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/checked="" value="9"/);
    const [resp] = await getDb().select().from(schema.surveyResponses).where(eq(schema.surveyResponses.surveyId, survey.id));
    expect(resp.channel).toBe('email');
    const textQ = Object.keys(resp.answers);
    expect(textQ).toHaveLength(1);
    const form: Record<string, string> = { intent: 'submit' };
    const version = (await getDb().select().from(schema.surveyVersions).where(eq(schema.surveyVersions.surveyId, survey.id)))[0];
    for (const q of version.questions) if (q.type === 'nps') form[`a.${q.id}`] = '9';
    else if (q.type === 'text') form[`a.${q.id}`] = 'Quick and kind';
    const done = await suite.app.request(path, { domain: a.domain, form });
    expect(done.status).toBe(302);
    expect((await recipients(survey.id)).find((r) => r.id === adaRow.id)!.status).toBe('responded');
    const [complete] = await getDb().select().from(schema.surveyResponses).where(eq(schema.surveyResponses.surveyId, survey.id));
    expect(complete.complete).toBe(true);
    const [event] = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, a.account.id), eq(schema.domainEvents.type, 'survey_received'))).orderBy(schema.domainEvents.id);
    expect(event.payload).toMatchObject({ channel: 'email', rating: 9 });

    // One-click unsubscribe (RFC 8058: a POST with no intent, no browser headers): never mailed again.
    const bobRow = rows.find((r) => r.email === 'bob@example.test')!;
    const unsub = await suite.app.request(`/survey/unsubscribe/${a.account.id}/${bobRow.token}`, { domain: a.domain, form: { 'List-Unsubscribe': 'One-Click' }, origin: null });
    expect(unsub.status).toBe(200);
    const second = await emailSurvey(a, { tagIds: [a.tag.id] });
    const occ2 = await runScheduled(a.account.id, second.id);
    suite.received.length = 0;
    await runEmailSend({ accountId: a.account.id, sendId: occ2.sendId });
    expect(suite.received.map((r) => r.to[0])).toEqual(['ada@example.test']);
    // The other account still mails bob: a suppression is per account.
    const theirs = await emailSurvey(b, { tagIds: [b.tag.id] });
    suite.received.length = 0;
    await runEmailSend({ accountId: b.account.id, sendId: (await runScheduled(b.account.id, theirs.id)).sendId });
    expect(suite.received.map((r) => r.to[0]).sort()).toEqual(['ada@example.test', 'bob@example.test', 'dee@example.test']);
  });

  it('resumes a send killed half way: every recipient gets exactly one email; a bounce marks the recipient and suppresses the address', async () => {
    const a = await setup();
    for (let i = 0; i < 150; i++) await getDb().insert(schema.contacts).values({ accountId: a.account.id, firstName: `P${i}`, email: `p${i}@example.test` }).returning();
    await getDb().execute(sql`insert into contact_tags (account_id, contact_id, tag_id) select account_id, id, ${a.tag.id} from contacts where account_id = ${a.account.id} and email like 'p%@example.test'`);
    const survey = await emailSurvey(a, { tagIds: [a.tag.id] });
    const occ = await runScheduled(a.account.id, survey.id);
    // The first slice stops after one batch and hands on (as a send does at its time limit, or as a killed one leaves it).
    const first = await runEmailSend({ accountId: a.account.id, sendId: occ.sendId, sliceMs: -1 });
    expect(first.done).toBe(false);
    // A worker killed while holding a claimed batch: its rows stay `sending` until the lease runs out.
    await getDb().execute(sql`update survey_email_recipients set status = 'sending', claimed_at = now() - interval '1 hour'
      where id in (select id from survey_email_recipients where send_id = ${occ.sendId} and status = 'queued' order by id limit 10)`);
    await runEmailSend({ accountId: a.account.id, sendId: occ.sendId });
    const to = suite.received.map((r) => r.to[0]);
    expect(to).toHaveLength(153);
    expect(new Set(to).size).toBe(153);
    const [send] = await getDb().select().from(schema.surveyEmailSends).where(eq(schema.surveyEmailSends.id, occ.sendId));
    expect(send).toMatchObject({ status: 'done', total: 153 });

    const bounced = (await recipients(survey.id)).find((r) => r.email === 'p7@example.test')!;
    expect(await markSurveyBounces({ accountId: a.account.id, messageIds: [bounced.messageId!] })).toBe(1);
    expect((await recipients(survey.id)).find((r) => r.id === bounced.id)!.status).toBe('bounced');
    const [sup] = await getDb().select().from(schema.emailSuppressions).where(eq(schema.emailSuppressions.email, 'p7@example.test'));
    expect(sup).toMatchObject({ accountId: a.account.id, reason: 'bounced' });
  });

  it('results: the delivery list pages 50 at a time (q=delivery), newest first, within the account', async () => {
    const a = await setup();
    const survey = await emailSurvey(a, { tagIds: [a.tag.id] });
    const occ = await runScheduled(a.account.id, survey.id);
    await getDb().execute(sql`insert into survey_email_recipients (account_id, survey_id, send_id, email, token, status)
      select ${a.account.id}, ${survey.id}, ${occ.sendId}, 'r' || g || '@example.test', md5(g::text || random()::text) || md5(random()::text), 'sent' from generate_series(1, 60) g`);
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    const first = await suite.app.request(`/surveys/${survey.id}/results`, { domain: a.domain, cookie });
    expect(first.status).toBe(200);
    expect(first.text.match(/data-testid="recipient-row"/g)).toHaveLength(50);
    expect(first.text).toContain('r60@example.test');
    expect(first.text).toContain(`href="/surveys/${survey.id}/results?q=delivery&amp;page=2#delivery"`);
    const second = await suite.app.request(`/surveys/${survey.id}/results?q=delivery&page=2`, { domain: a.domain, cookie });
    expect(second.text.match(/data-testid="recipient-row"/g)).toHaveLength(10);
    expect(second.text).toContain('r1@example.test');
    expect(second.text).toContain('(page 2)');
  });

  it('takes a CSV list only for a draft, with the specification messages, and sends to it', async () => {
    const a = await setup();
    const survey = await emailSurvey(a, { tagIds: [a.tag.id] }, false);
    const up = (bytes: Buffer, filename = 'list.csv', surveyId = survey.id) =>
      uploadRecipientList({ accountId: a.account.id, surveyId, actorId: a.owner.id, listName: 'Customers', filename, bytes });
    await expect(up(Buffer.alloc(0))).rejects.toThrow('please select a csv file');
    await expect(up(Buffer.alloc(5 * 1024 * 1024, 'a'))).rejects.toThrow('File size must be less than 5mb.');
    await expect(up(Buffer.from('\x89PNG\r\n\x1a\n0000'), 'list.png')).rejects.toThrow('Only csv or excel files can be uploaded.');
    await expect(up(Buffer.from('name\nAda\n'))).rejects.toThrow('Map one column to Email');
    expect(RecipientListSchema.safeParse({ listName: 'x'.repeat(31) }).error?.issues[0].message).toBe('The list name must be 30 characters or less.');
    const ok = await up(Buffer.from('Email,First name\nada@example.test,Ada\nnot-an-address,X\nzed@example.test,Zed\nADA@example.test,Again\n'));
    expect(ok).toMatchObject({ success: 2, failed: 2 });
    // Another account's survey id: not found, nothing written.
    const b = await setup();
    await expect(up(Buffer.from('email\nq@example.test\n'), 'l.csv', (await emailSurvey(b, { tagIds: [b.tag.id] }, false)).id)).rejects.toBeInstanceOf(SurveyInputError);
    await publishSurvey({ ...a.who, id: survey.id });
    await expect(up(Buffer.from('email\nq@example.test\n'))).rejects.toThrow('only while the survey is a draft');
    const occ = await runScheduled(a.account.id, survey.id);
    await runEmailSend({ accountId: a.account.id, sendId: occ.sendId });
    expect(suite.received.map((r) => r.to[0]).sort()).toEqual(['ada@example.test', 'zed@example.test']);
  });

  it('schedules at a local time in a zone and recurs every N days at the same local time across a DST change', async () => {
    const bad = EmailScheduleSchema.safeParse({ sendLater: true, recurring: true });
    expect(bad.error?.issues.map((i) => i.message)).toEqual(['please select date', 'please select timezone', 'please select any interval']);
    expect(EmailScheduleSchema.safeParse({ sendLater: true, sendDate: '2026-10-20', timezone: 'Mars/Base' }).error?.issues[0].message).toBe('please select timezone');
    const rule = ruleText({ start: new Date('2026-10-20T07:00:00Z'), zone: 'Europe/Paris', intervalDays: 7 }); // 09:00 in Paris (CEST)
    // 25 October 2026 Paris leaves summer time: the next occurrence is 09:00 CET, 08:00 UTC.
    expect(nextOccurrence({ rrule: rule, timezone: 'Europe/Paris' }, new Date('2026-10-20T07:00:00Z'))?.toISOString()).toBe('2026-10-27T08:00:00.000Z');

    const a = await setup();
    const survey = await emailSurvey(a, { tagIds: [a.tag.id] }, false);
    const schedule = EmailScheduleSchema.parse({ sendLater: true, sendDate: '2099-03-20', sendTime: '09:30', timezone: 'America/New_York', recurring: true, interval: 'custom', customDays: 10 });
    await getDb().transaction((tx) => saveEmailSchedule(tx, { accountId: a.account.id, surveyId: survey.id, schedule }));
    await publishSurvey({ ...a.who, id: survey.id });
    const [job] = await getDb().execute<{ start_after: Date; data: { at: string } }>(
      sql`select start_after, data from pgboss.job where name = ${QUEUES.surveyEmailOccurrence} and data->>'surveyId' = ${String(survey.id)}`,
    );
    expect(job.data.at).toBe('2099-03-20T13:30:00.000Z'); // EDT (UTC-4) on 20 March 2099
    expect(new Date(job.start_after).toISOString()).toBe(job.data.at);
    const occ = await runScheduled(a.account.id, survey.id);
    expect(occ.next).toBe('2099-03-30T13:30:00.000Z');
    // Publishing again supersedes the waiting timers of the earlier publish.
    await publishSurvey({ ...a.who, id: survey.id });
    expect(await runEmailOccurrence({ accountId: a.account.id, surveyId: survey.id, generation: 1, at: occ.next! })).toEqual({ skipped: 'superseded' });
  });

  it('editor: the Target step uploads a list (and says what is wrong with a bad one), the Settings step saves the schedule with the specification messages', async () => {
    const a = await setup();
    const survey = await emailSurvey(a, { tagIds: [a.tag.id] }, false);
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    const target = `/surveys/edit/${survey.id}/email/target`;
    const page = await suite.app.request(target, { domain: a.domain, cookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain('By CSV upload');
    const post = (fields: Record<string, string>, files?: Parameters<typeof postMultipart>[2]['files']) =>
      postMultipart(suite.app.port, target, { domain: a.domain, cookie, fields: { audience: 'csv', intent: 'csv-upload', ...fields }, files });
    const noFile = await post({ listName: 'Spring' });
    expect(noFile.status).toBe(400);
    expect(noFile.text).toContain('please select a csv file');
    expect(noFile.text).toContain('value="Spring"');
    const tooBig = await post({ listName: 'Spring' }, [{ name: 'file', filename: 'big.csv', bytes: Buffer.alloc(5 * 1024 * 1024 + 10, 'a'), type: 'text/csv' }]);
    expect(tooBig.status).toBe(400);
    expect(tooBig.text).toContain('File size must be less than 5mb.');
    const longName = await post({ listName: 'x'.repeat(31) }, [{ name: 'file', filename: 'l.csv', bytes: Buffer.from('email\na@example.test\n') }]);
    expect(longName.text).toContain('The list name must be 30 characters or less.');
    // The columns are mapped like the contact import: a column the guess does not know ("Correo") is chosen by hand.
    const ok = await post({ listName: 'Spring' }, [{ name: 'file', filename: 'l.csv', bytes: Buffer.from('Correo,Nombre,Extra\na@example.test,A,x\nbad,B,y\na@example.test,C,z\n') }]);
    expect(ok.status).toBe(302);
    const mapUrl = ok.headers.location!;
    expect(mapUrl).toMatch(new RegExp(`^/surveys/${survey.id}/lists/\\d+$`));
    const waiting = await suite.app.request(target, { domain: a.domain, cookie });
    expect(waiting.text).toContain('Map the columns of Spring');
    const mapping = await suite.app.request(mapUrl, { domain: a.domain, cookie });
    expect(mapping.status).toBe(200);
    expect(mapping.text).toContain('Correo');
    expect(mapping.text).toContain('a@example.test');
    const noEmail = await suite.app.request(mapUrl, { domain: a.domain, cookie, form: { intent: 'map', 'mapping[0]': 'ignore', 'mapping[1]': 'firstName', 'mapping[2]': 'ignore' } });
    expect(noEmail.status).toBe(400);
    expect(noEmail.text).toContain('Map one column to Email');
    const mapped = await suite.app.request(mapUrl, { domain: a.domain, cookie, form: { intent: 'map', 'mapping[0]': 'email', 'mapping[1]': 'firstName', 'mapping[2]': 'ignore' } });
    expect(mapped.status).toBe(302);
    expect(mapped.headers.location).toBe(target);
    const after = await suite.app.request(target, { domain: a.domain, cookie });
    expect(after.text).toContain('Spring (1 addresses, 2 failed)');
    const [entry] = await getDb().select().from(schema.surveyEmailListEntries).where(eq(schema.surveyEmailListEntries.accountId, a.account.id));
    expect(entry).toMatchObject({ email: 'a@example.test', name: 'A' });
    // Mapped once: a second post changes nothing; another account's list is not found.
    const again = await suite.app.request(mapUrl, { domain: a.domain, cookie, form: { intent: 'map', 'mapping[0]': 'email', 'mapping[1]': 'ignore', 'mapping[2]': 'ignore' } });
    expect(again.status).toBe(400);
    const b = await setup();
    const bCookie = await sessionCookie({ domain: b.domain, accountId: b.account.id, userId: b.owner.id });
    expect((await suite.app.request(mapUrl, { domain: b.domain, cookie: bCookie })).status).toBe(404);

    const settings = `/surveys/edit/${survey.id}/email/settings`;
    const base = { name: 'Quarterly', folderId: String(survey.folderId), language: 'EN', intent: 'save' };
    const refused = await suite.app.request(settings, { domain: a.domain, cookie, form: { ...base, 'schedule.sendLater': 'on', 'schedule.recurring': 'on' } });
    expect(refused.status).toBe(400);
    for (const m of ['please select date', 'please select timezone', 'please select any interval']) expect(refused.text).toContain(m);
    const saved = await suite.app.request(settings, {
      domain: a.domain,
      cookie,
      form: { ...base, 'schedule.sendLater': 'on', 'schedule.sendDate': '2099-01-05', 'schedule.sendTime': '08:15', 'schedule.timezone': 'Asia/Tokyo', 'schedule.recurring': 'on', 'schedule.interval': '30' },
    });
    expect(saved.status).toBe(302);
    const [row] = await getDb().select().from(schema.surveyEmailSchedules).where(eq(schema.surveyEmailSchedules.surveyId, survey.id));
    expect(row).toMatchObject({ sendLater: true, sendAt: '2099-01-05T08:15', timezone: 'Asia/Tokyo', recurring: true, intervalDays: 30 });
    const shown = await suite.app.request(settings, { domain: a.domain, cookie });
    expect(shown.text).toContain('value="2099-01-05"');
  });
});
