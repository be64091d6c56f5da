import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { dismissDeadLetter, getDeadLetter, listDeadLetters, retryDeadLetter } from '../../app/models/automation/dead-letters.server';
import { defaultSlaTargets } from '../../app/models/automation/sla-policies.schemas';
import { createSlaPolicy } from '../../app/models/automation/sla-policies.server';
import { QUEUES, startBoss } from '../../app/utils/jobs.server';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

const PATH = '/settings/failed-automations';

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

/** A domain event of the account (an SLA policy's creation), as the engine's jobs name them. */
async function eventOf(a: Account) {
  const policy = await createSlaPolicy({ accountId: a.account.id, actorId: a.owner.id, name: `P ${Math.random()}`, inboxIds: [], targets: defaultSlaTargets(), isEscalate: false, escalateTo: [], isActive: true });
  const [event] = await getDb()
    .select()
    .from(schema.domainEvents)
    .where(and(eq(schema.domainEvents.accountId, a.account.id), eq(schema.domainEvents.subjectId, String(policy.id)), eq(schema.domainEvents.type, 'sla_policy_created'))).orderBy(schema.domainEvents.id);
  return event;
}

/**
 * A job of the queue that fails its last attempt the way a worker's throw fails it: pg-boss marks it failed and
 * copies it into the dead-letter queue. Returns the dead letter's id.
 */
async function failForGood(queue: string, data: object, message: string) {
  const boss = await startBoss();
  const id = await boss.send(queue, data, { retryLimit: 0 });
  expect(id).toBeTruthy();
  await boss.fail(queue, id!, new Error(message));
  const rows = await getDb().execute<{ id: string }>(sql`select id::text as id from pgboss.job where name = ${QUEUES.deadLetters} and data = ${JSON.stringify(data)}::jsonb order by created_on desc limit 1`);
  expect(rows.length).toBe(1);
  return rows[0].id;
}

// A job queued while serving a request also carries the request's correlation id (ADR 150): compared without it.
const jobsOf = async (queue: string, data: object) =>
  (await getDb().execute<{ n: number }>(sql`select count(*)::int as n from pgboss.job where name = ${queue} and state = 'created' and (data - 'requestId') = ${JSON.stringify(data)}::jsonb`))[0].n;

function toastOf(res: { headers: Record<string, string | string[] | undefined> }) {
  const cookie = String(res.headers['set-cookie']);
  const value = /__parley_toast=([^.;]+)/.exec(cookie)?.[1] ?? '';
  const flash = JSON.parse(Buffer.from(decodeURIComponent(value), 'base64').toString('utf8')) as Record<string, { text: string }>;
  return Object.values(flash)[0]?.text;
}

describe('failed automations (dead letters)', () => {
  it("lists only the account's dead letters, with event, when and last error, and retries one through the page", async () => {
    const a = await setupAccount();
    const b = await setupAccount();
    const eventA = await eventOf(a);
    const eventB = await eventOf(b);
    const letterA = await failForGood(QUEUES.domainEvents, { eventId: eventA.id }, 'automation handler exploded');
    const letterB = await failForGood(QUEUES.domainEvents, { eventId: eventB.id }, 'b handler exploded');
    // A job naming an event that does not exist belongs to nobody.
    await failForGood(QUEUES.domainEvents, { eventId: 987654321 }, 'orphan');

    const listA = await listDeadLetters({ accountId: a.account.id });
    expect(listA.total).toBe(1);
    expect(listA.rows[0]).toMatchObject({ id: letterA, eventId: eventA.id, eventType: 'sla_policy_created', queue: QUEUES.domainEvents, error: 'automation handler exploded', attempts: 1 });
    expect((await listDeadLetters({ accountId: b.account.id })).rows.map((r) => r.id)).toEqual([letterB]);

    const page = await app.request(PATH, { domain: a.domain, cookie: a.ownerCookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain('sla_policy_created');
    expect(page.text).toContain('automation handler exploded');
    expect(page.text).not.toContain('b handler exploded');
    expect(page.text).not.toContain('orphan');

    // Another account cannot retry or dismiss it, through the page or the model.
    expect((await app.request(PATH, { domain: b.domain, cookie: b.ownerCookie, form: { intent: 'retry', id: letterA } })).status).toBe(404);
    expect((await app.request(PATH, { domain: b.domain, cookie: b.ownerCookie, form: { intent: 'dismiss', id: letterA } })).status).toBe(404);
    expect(await retryDeadLetter({ accountId: b.account.id, actorId: b.owner.id, id: letterA })).toBeUndefined();
    expect(await getDeadLetter({ accountId: a.account.id, id: letterA })).toBeDefined();

    const before = await jobsOf(QUEUES.domainEvents, { eventId: eventA.id });
    const retried = await app.request(PATH, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'retry', id: letterA } });
    expect(retried.status).toBe(302);
    expect(toastOf(retried)).toBe('Automation Retried');
    expect(await jobsOf(QUEUES.domainEvents, { eventId: eventA.id })).toBe(before + 1);
    expect(await getDeadLetter({ accountId: a.account.id, id: letterA })).toBeUndefined();
    expect((await listDeadLetters({ accountId: a.account.id })).total).toBe(0);
    const [event] = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, a.account.id), eq(schema.domainEvents.type, 'dead_letter_retried'))).orderBy(schema.domainEvents.id);
    expect(event.payload).toMatchObject({ queue: QUEUES.domainEvents, eventId: eventA.id });
    // Retrying twice finds nothing the second time.
    expect((await app.request(PATH, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'retry', id: letterA } })).status).toBe(404);
    expect((await listDeadLetters({ accountId: b.account.id })).total).toBe(1);
  });

  it('tells the queue from the original failed job, and refuses to guess it when that is gone', async () => {
    const a = await setupAccount();
    const timer = { accountId: a.account.id, conversationId: 4242 };
    const snooze = await failForGood(QUEUES.snoozeWake, timer, 'snooze failed');
    expect(await getDeadLetter({ accountId: a.account.id, id: snooze })).toMatchObject({ queue: QUEUES.snoozeWake, error: 'snooze failed' });
    // The same shape with no original job left (pg-boss archived and deleted it): not retriable, but dismissable.
    const boss = await startBoss();
    const lonely = await boss.send(QUEUES.deadLetters, { accountId: a.account.id, conversationId: 77 });
    const letter = await getDeadLetter({ accountId: a.account.id, id: lonely! });
    expect(letter).toMatchObject({ queue: null, error: null });
    const refused = await app.request(PATH, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'retry', id: lonely! } });
    expect(refused.status).toBe(302);
    expect(toastOf(refused)).toMatch(/cannot be retried/);
    const page = await app.request(PATH, { domain: a.domain, cookie: a.ownerCookie });
    expect(page.text).toContain('Snooze wake-up');

    const dismissed = await app.request(PATH, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'dismiss', id: lonely! } });
    expect(dismissed.status).toBe(302);
    expect(toastOf(dismissed)).toBe('Failed Automation Dismissed');
    expect(await getDeadLetter({ accountId: a.account.id, id: lonely! })).toBeUndefined();
    expect(await dismissDeadLetter({ accountId: a.account.id, actorId: null, id: lonely! })).toBeUndefined();

    // A retried timer goes back to its own queue.
    await retryDeadLetter({ accountId: a.account.id, actorId: a.owner.id, id: snooze });
    expect(await jobsOf(QUEUES.snoozeWake, timer)).toBe(1);
  });

  it('is for manage_workflow_rules only, and refuses bad ids and intents', async () => {
    const a = await setupAccount();
    const letter = await failForGood(QUEUES.domainEvents, { eventId: (await eventOf(a)).id }, 'boom');
    expect((await app.request(PATH, { domain: a.domain, cookie: a.viewerCookie })).status).toBe(403);
    expect((await app.request(PATH, { domain: a.domain, cookie: a.viewerCookie, form: { intent: 'retry', id: letter } })).status).toBe(403);
    expect(await getDeadLetter({ accountId: a.account.id, id: letter })).toBeDefined();
    expect((await app.request(PATH, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'retry', id: 'not-a-uuid' } })).status).toBe(404);
    expect((await app.request(PATH, { domain: a.domain, cookie: a.ownerCookie, form: { intent: 'explode', id: letter } })).status).toBe(400);
  });
});
