import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { openConversation, setConversationStatus } from '../../app/models/inbox/conversations.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { conversationTime, setStopTimersOnResolve, startTimer, timeTotals } from '../../app/models/time-tracking/time-entries.server';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

async function setup() {
  const a = await createTestAccount();
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: `support@${a.domain}.test` });
  const { conversation, contact } = await openConversation({
    accountId: a.account.id,
    inboxId: inbox.id,
    sourceType: 'email',
    subject: 'Broken invoice',
    contact: { email: `cara@${a.domain}.test`, name: 'Cara Customer' },
    message: { kind: 'incoming', text: 'Hello' },
  });
  const owner = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  const agentCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: agent.id });
  const get = (path: string, cookie = owner) => app.request(path, { domain: a.domain, cookie });
  const post = (path: string, form: Record<string, string>, cookie = owner) => app.request(path, { domain: a.domain, cookie, form });
  return { ...a, agent, agentCookie, conversation, contact, get, post };
}

const entriesOf = (accountId: number, conversationId: number) =>
  getDb()
    .select()
    .from(schema.timeEntries)
    .where(and(eq(schema.timeEntries.accountId, accountId), eq(schema.timeEntries.conversationId, conversationId)));

describe('time tracking', () => {
  it('logs manual time without JavaScript, with totals on the conversation, per agent and per contact', async () => {
    const s = await setup();
    const path = `/inbox/${s.conversation.id}/time`;
    const bad = await s.post(path, { intent: 'log', duration: 'abc', note: 'typed note' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Enter minutes (45) or hours and minutes (1:30)');
    expect(bad.text).toContain('typed note');
    expect((await s.post(path, { intent: 'log', duration: '1:30', note: 'Refund', billable: 'on' })).status).toBe(302);
    expect((await s.post(path, { intent: 'log', duration: '15' }, s.agentCookie)).status).toBe(302);
    const page = await s.get(path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('1h 45m');
    expect(page.text).toContain('Refund');
    const convo = await s.get(`/inbox/${s.conversation.id}`);
    expect(convo.text).toMatch(/1h 45m(<!-- -->)? logged/);
    const contactPage = await s.get(`/customers/${s.contact.id}`);
    expect(contactPage.text).toMatch(/Time logged: (<!-- -->)?1h 45m/);
    const totals = await timeTotals({ accountId: s.account.id, contactId: s.contact.id });
    expect(totals).toMatchObject({ seconds: 6300, billableSeconds: 5400, entries: 2 });
    const report = await s.get('/inbox/time');
    expect(report.status).toBe(200);
    expect(report.text).toContain('Cara Customer');
    const csv = await s.get('/inbox/time/export');
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.text.trim().split('\n')).toHaveLength(3);
    expect(csv.text).toContain('Refund');
  });

  it('edits and deletes only your own entries', async () => {
    const s = await setup();
    const path = `/inbox/${s.conversation.id}/time`;
    await s.post(path, { intent: 'log', duration: '30', note: 'mine' });
    const [entry] = await entriesOf(s.account.id, s.conversation.id);
    expect((await s.post(path, { intent: 'edit', id: String(entry.id), duration: '45', note: 'agent edit' }, s.agentCookie)).status).toBe(404);
    expect((await s.post(path, { intent: 'delete', id: String(entry.id) }, s.agentCookie)).status).toBe(404);
    expect((await s.post(path, { intent: 'edit', id: String(entry.id), duration: '45', note: 'edited' })).status).toBe(302);
    expect((await entriesOf(s.account.id, s.conversation.id))[0]).toMatchObject({ durationSeconds: 2700, note: 'edited' });
    expect((await s.post(path, { intent: 'delete', id: String(entry.id) })).status).toBe(302);
    expect(await entriesOf(s.account.id, s.conversation.id)).toHaveLength(0);
    const events = await getDb().select().from(schema.domainEvents).where(and(eq(schema.domainEvents.accountId, s.account.id), eq(schema.domainEvents.subjectType, 'time_entry'))).orderBy(schema.domainEvents.id);
    expect(events.map((e) => e.type).sort()).toEqual(['time_entry_created', 'time_entry_deleted', 'time_entry_updated']);
  });

  it('starts and stops a timer with plain forms; a second start is refused; resolving stops it when set', async () => {
    const s = await setup();
    const path = `/inbox/${s.conversation.id}/time`;
    expect((await s.post(path, { intent: 'start', back: 'conversation' })).headers.location).toBe(`/inbox/${s.conversation.id}`);
    expect((await s.post(path, { intent: 'start' })).status).toBe(302);
    expect((await entriesOf(s.account.id, s.conversation.id)).filter((e) => e.durationSeconds === null)).toHaveLength(1);
    expect((await s.get(path)).text).toContain('Stop timer');
    expect((await s.post(path, { intent: 'stop' })).status).toBe(302);
    expect((await entriesOf(s.account.id, s.conversation.id))[0].durationSeconds).not.toBeNull();

    // The setting: only an admin may change it; with it on, resolving stops every running timer.
    expect((await s.post('/inbox/time', { intent: 'settings', stopTimersOnResolve: 'on' }, s.agentCookie)).status).toBe(403);
    expect((await s.post('/inbox/time', { intent: 'settings', stopTimersOnResolve: 'on' })).status).toBe(302);
    await startTimer({ accountId: s.account.id, userId: s.agent.id, conversationId: s.conversation.id });
    await setConversationStatus({ accountId: s.account.id, actorId: s.owner.id, ids: [s.conversation.id], status: 'resolved' });
    const time = await conversationTime({ accountId: s.account.id, conversationId: s.conversation.id, userId: s.agent.id });
    expect(time.running).toBeNull();
    await setStopTimersOnResolve({ accountId: s.account.id, actorId: s.owner.id, value: false });
    await setConversationStatus({ accountId: s.account.id, actorId: s.owner.id, ids: [s.conversation.id], status: 'open' });
    await startTimer({ accountId: s.account.id, userId: s.agent.id, conversationId: s.conversation.id });
    await setConversationStatus({ accountId: s.account.id, actorId: s.owner.id, ids: [s.conversation.id], status: 'resolved' });
    expect((await conversationTime({ accountId: s.account.id, conversationId: s.conversation.id, userId: s.agent.id })).running).not.toBeNull();
  });

  it("never lets one account log, see or export another account's time", async () => {
    const a = await setup();
    const b = await setup();
    await a.post(`/inbox/${a.conversation.id}/time`, { intent: 'log', duration: '20', note: 'secret-a' });
    expect((await b.post(`/inbox/${a.conversation.id}/time`, { intent: 'log', duration: '20' })).status).toBe(404);
    expect((await b.get(`/inbox/${a.conversation.id}/time`)).status).toBe(404);
    const [entry] = await entriesOf(a.account.id, a.conversation.id);
    expect((await b.post(`/inbox/${b.conversation.id}/time`, { intent: 'delete', id: String(entry.id) })).status).toBe(404);
    expect((await b.get('/inbox/time/export')).text).not.toContain('secret-a');
    expect((await timeTotals({ accountId: b.account.id, contactId: a.contact.id })).seconds).toBe(0);
  });
});
