import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createCaptcha } from '../../app/models/productivity/captcha.server';
import { createForm, setFormStatus, submitForm } from '../../app/models/forms/forms.server';
import { QUEUES, startBoss } from '../../app/utils/jobs.server';
import { createTestAccount } from '../factories';
import { startTestApp } from '../helpers/http';

/** ADR 123: a public submission is one statement (the rate limit, the response, its event and the engine's job). */

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

async function answered(formId: number) {
  const c = await createCaptcha({ formId: -formId, now: Date.now() - 5_000 });
  const [, x, y] = c.question.match(/What is (\d+) \+ (\d+)\?/)!;
  return { captchaToken: c.token, captchaQuestion: c.question, captchaAnswer: String(Number(x) + Number(y)) };
}

async function publishedForm() {
  const a = await createTestAccount();
  const form = await createForm({ accountId: a.account.id, actorId: a.owner.id, name: 'Demo request' });
  const published = (await setFormStatus({ accountId: a.account.id, actorId: a.owner.id, id: form.id, status: 'published' }))!;
  return { ...a, form: published };
}

type JobRow = Record<string, unknown> & { data: Record<string, unknown> };
const jobOf = async (eventId: number) => {
  const rows = await getDb().execute<JobRow>(sql`
    select name, data, priority, state, singleton_key, singleton_on, dead_letter, expire_in::text as expire_in, retry_limit, retry_delay, retry_backoff, policy,
           (keep_until - start_after)::text as kept, (start_after - created_on) < interval '1 second' as starts_now
      from pgboss.job where name = ${QUEUES.domainEvents} and (data->>'eventId')::bigint = ${eventId}`);
  return rows;
};

describe('a public form submission in one statement (ADR 123)', () => {
  it('queues the engine job exactly as boss.send does, with the event and the response', async () => {
    const s = await publishedForm();
    const [nameKey, emailKey] = s.form.fields.map((f) => f.key);
    const stored = await submitForm({ accountId: s.account.id, form: s.form, answers: { [nameKey]: 'Ada Lovelace', [emailKey]: 'Ada@Example.test' } });
    const [response] = await getDb().select().from(schema.formResponses).where(eq(schema.formResponses.id, stored.id));
    expect(response).toMatchObject({ accountId: s.account.id, formId: s.form.id, email: 'ada@example.test', pending: true, contactId: null, conversationId: null });
    const [event] = await getDb().select().from(schema.domainEvents).where(eq(schema.domainEvents.id, stored.eventId));
    expect(event).toMatchObject({ accountId: s.account.id, type: 'form_submitted', subjectType: 'form_response', subjectId: String(stored.id), actorType: 'contact', actorId: null });
    expect(event.payload).toEqual({ formId: s.form.id, formName: 'Demo request', inboxId: null, contactId: null, conversationId: null, email: 'ada@example.test' });

    // The same job from pg-boss itself, for an event of the same kind: every column but the ids is the same.
    const boss = await startBoss();
    const twin = await getDb().transaction(async (tx) => {
      const [e] = await tx.insert(schema.domainEvents).values({ accountId: s.account.id, type: 'form_submitted', subjectType: 'form_response', subjectId: '0' }).returning();
      return e;
    });
    await boss.send(QUEUES.domainEvents, { eventId: twin.id, type: twin.type });
    const [mine] = await jobOf(stored.eventId);
    const [theirs] = await jobOf(twin.id);
    expect(mine.data).toEqual({ eventId: stored.eventId, type: 'form_submitted' });
    // The state is left out: an engine woken by the NOTIFY (ADR 142) may have fetched either job already.
    expect({ ...mine, data: null, state: null }).toEqual({ ...theirs, data: null, state: null });
    expect(['created', 'active', 'completed']).toContain(mine.state);
    expect(mine).toMatchObject({ retry_limit: 6, retry_backoff: true, dead_letter: QUEUES.deadLetters, starts_now: true });
  });

  it('counts every attempt; a submission over the window is a 429 that stores nothing and keeps the captcha usable', async () => {
    const s = await publishedForm();
    const [nameKey, emailKey] = s.form.fields.map((f) => f.key);
    const path = `/f/${s.form.code}`;
    const post = async (i: number, extra: Record<string, string> = {}) =>
      app.request(path, { domain: s.domain, form: { [nameKey]: 'Rita Rate', [emailKey]: `rita${i}@example.test`, ...(await answered(s.form.id)), ...extra } });
    // A refused attempt counts too (as before ADR 123): 5 with a bad email, then 15 good ones fill the window of 20.
    for (let i = 0; i < 5; i++) expect((await post(i, { [emailKey]: 'nope' })).status).toBe(400);
    for (let i = 0; i < 15; i++) expect((await post(i)).status).toBe(302);
    const responses = () => getDb().select({ id: schema.formResponses.id }).from(schema.formResponses).where(eq(schema.formResponses.accountId, s.account.id));
    expect(await responses()).toHaveLength(15);

    const captcha = await answered(s.form.id);
    const refused = await app.request(path, { domain: s.domain, form: { [nameKey]: 'Rita Rate', [emailKey]: 'rita-late@example.test', ...captcha } });
    expect(refused.status).toBe(429);
    expect(refused.text).toMatch(/Too many attempts\. Try again in \d+ seconds\./);
    expect(await responses()).toHaveLength(15);
    const events = await getDb().select({ id: schema.domainEvents.id }).from(schema.domainEvents).where(and(eq(schema.domainEvents.accountId, s.account.id), eq(schema.domainEvents.type, 'form_submitted')));
    expect(events).toHaveLength(15);
    // An invalid attempt over the window is a 429 too, before its field errors.
    expect((await post(99, { [emailKey]: 'nope' })).status).toBe(429);

    // Once the window is over, the question the refused page carried still goes through.
    await getDb().update(schema.rateLimits).set({ resetAt: new Date(Date.now() - 1000) }).where(sql`${schema.rateLimits.key} like ${`form:${s.account.id}:%`}`);
    const later = await app.request(path, { domain: s.domain, form: { [nameKey]: 'Rita Rate', [emailKey]: 'rita-late@example.test', ...captcha } });
    expect(later.status).toBe(302);
    expect(await responses()).toHaveLength(16);
  });

  it('answers another account’s host, the bare host and an unknown account with a 404', async () => {
    const s = await publishedForm();
    const other = await createTestAccount();
    expect((await app.request(`/f/${s.form.code}`, { domain: other.domain })).status).toBe(404);
    expect((await app.request(`/f/${s.form.code}`, { domain: 'no-such-account-here' })).status).toBe(404);
    expect((await app.request(`/f/${s.form.code}`)).status).toBe(404);
    expect((await app.request(`/f/${s.form.code}`, { domain: s.domain })).status).toBe(200);
  });
});
