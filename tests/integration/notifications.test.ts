import { and, eq } from 'drizzle-orm';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { assignConversations, openConversation, postMessage } from '../../app/models/inbox/conversations.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { addMessage } from '../../app/models/inbox/messages.server';
import {
  countUnreadNotifications,
  listNotifications,
  markNotificationsRead,
  sendNotificationEmail,
  warnSlaDue,
} from '../../app/models/notifications/notifications.server';
import { checkSlaBreach } from '../../app/models/automation/sla.server';
import { updateNotificationPreferences } from '../../app/models/users/profile.server';
import { QUEUES } from '../../app/utils/jobs.server';
import { resetSingleton } from '../../app/utils/singleton.server';
import { createTestAccount, createTestUser } from '../factories';
import { drainEvents, lastEventId } from '../helpers/engine';

/** ADR 034: assignments, customer messages and mentions reach the bell, and one batched email per conversation. */

const received: { raw: Buffer; to: string[] }[] = [];
let smtp: SMTPServer;

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({ raw: Buffer.concat(chunks), to: session.envelope.rcptTo.map((r) => r.address) });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  process.env.SMTP_URL = `smtp://127.0.0.1:${(smtp.server.address() as { port: number }).port}`;
  resetSingleton('config');
  resetSingleton('smtp-transport');
});
afterEach(() => {
  received.length = 0;
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  resetSingleton('config');
  resetSingleton('smtp-transport');
  await new Promise<void>((r) => smtp.close(() => r()));
});

async function setup() {
  const a = await createTestAccount({ firstName: 'Olive' });
  const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent', firstName: 'Ana', email: `ana-${a.account.id}@example.test` });
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Desk', channelType: 'internal' });
  const opened = await getDb().transaction((tx) =>
    openConversation({ tx, accountId: a.account.id, inboxId: inbox.id, sourceType: 'internal_ticket', subject: 'Printer on fire', contact: { email: 'c@example.test' }, message: { kind: 'incoming', text: 'Help' } }),
  );
  return { ...a, agent, inbox, conversationId: opened.conversation.id, after: await lastEventId(a.account.id) };
}

async function emailJobs(userId: number, conversationId: number) {
  return getDb().execute<{ id: string; state: string; start_after: Date }>(
    `select id, state, start_after from pgboss.job where name = '${QUEUES.notificationEmail}' and data->>'userId' = '${userId}' and data->>'conversationId' = '${conversationId}'`,
  );
}

describe('agents are told', () => {
  it('of an assignment, then of the customer writing, in the bell and in one email for both', async () => {
    const s = await setup();
    await assignConversations({ accountId: s.account.id, actorId: s.owner.id, ids: [s.conversationId], assigneeId: s.agent.id, teamId: null });
    await drainEvents(s.account.id, { after: s.after });
    let list = await listNotifications({ accountId: s.account.id, userId: s.agent.id });
    expect(list.map((n) => [n.kind, n.title, n.link])).toEqual([['assigned', `Assigned to you: #${s.conversationId} Printer on fire`, `/inbox/${s.conversationId}`]]);
    // The owner assigned it: they are not told of their own doing.
    expect(await listNotifications({ accountId: s.account.id, userId: s.owner.id })).toEqual([]);

    const before = await lastEventId(s.account.id);
    await getDb().transaction((tx) => addMessage(tx, { accountId: s.account.id, conversationId: s.conversationId, kind: 'incoming', text: 'It is still burning' }));
    await drainEvents(s.account.id, { after: before });
    list = await listNotifications({ accountId: s.account.id, userId: s.agent.id });
    expect(list.map((n) => n.kind)).toEqual(['customer_message', 'assigned']);
    expect(await countUnreadNotifications({ accountId: s.account.id, userId: s.agent.id })).toBe(2);

    // One timer for both, a few minutes out.
    const jobs = await emailJobs(s.agent.id, s.conversationId);
    expect(jobs).toHaveLength(1);
    expect(new Date(jobs[0].start_after).getTime()).toBeGreaterThan(Date.now() + 60_000);
    await sendNotificationEmail({ accountId: s.account.id, userId: s.agent.id, conversationId: s.conversationId });
    expect(received).toHaveLength(1);
    const mail = await simpleParser(received[0].raw);
    expect(received[0].to).toEqual([s.agent.email]);
    expect(mail.subject).toBe(`2 updates in #${s.conversationId} Printer on fire`);
    expect(mail.text).toContain('Assigned to you');
    expect(mail.text).toContain('It is still burning');
    expect(mail.text).toContain(`/inbox/${s.conversationId}`);
    // Run again (a retry, or a second timer): nothing left to mail.
    await sendNotificationEmail({ accountId: s.account.id, userId: s.agent.id, conversationId: s.conversationId });
    expect(received).toHaveLength(1);

    // Read one, then all.
    await markNotificationsRead({ accountId: s.account.id, userId: s.agent.id, id: list[1].id });
    expect(await countUnreadNotifications({ accountId: s.account.id, userId: s.agent.id })).toBe(1);
    // Another user's id changes nothing.
    expect(await markNotificationsRead({ accountId: s.account.id, userId: s.owner.id, id: list[0].id })).toBe(0);
    await markNotificationsRead({ accountId: s.account.id, userId: s.agent.id });
    expect(await countUnreadNotifications({ accountId: s.account.id, userId: s.agent.id })).toBe(0);
  });

  it('of a mention in a note (@name), by email only when the preference says so', async () => {
    const s = await setup();
    await postMessage({ accountId: s.account.id, actorId: s.owner.id, conversationId: s.conversationId, kind: 'note', text: '@Ana can you take this? cc @nobody' });
    await drainEvents(s.account.id, { after: s.after });
    const [n] = await listNotifications({ accountId: s.account.id, userId: s.agent.id });
    expect(n).toMatchObject({ kind: 'mention', title: `You were mentioned in #${s.conversationId} Printer on fire`, body: '@Ana can you take this? cc @nobody' });
    expect(n.emailedAt).toBeNull();
    await sendNotificationEmail({ accountId: s.account.id, userId: s.agent.id, conversationId: s.conversationId });
    expect((await simpleParser(received[0].raw)).subject).toContain('You were mentioned');

    // Email off: the bell still rings, no email timer.
    await updateNotificationPreferences({
      accountId: s.account.id,
      userId: s.agent.id,
      preferences: { emailOnAssignment: true, emailOnMention: false, emailOnNewConversation: false, emailOnCustomerMessage: true, emailOnSla: true, browserPush: false },
    });
    const before = await lastEventId(s.account.id);
    await postMessage({ accountId: s.account.id, actorId: s.owner.id, conversationId: s.conversationId, kind: 'note', text: 'again @ana' });
    await drainEvents(s.account.id, { after: before });
    const rows = await getDb()
      .select()
      .from(schema.notifications)
      .where(and(eq(schema.notifications.accountId, s.account.id), eq(schema.notifications.userId, s.agent.id)));
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.emailedAt !== null)).toBe(true);
  });

  it('of an SLA about to breach, then breached: the assignee', async () => {
    const s = await setup();
    await assignConversations({ accountId: s.account.id, actorId: s.owner.id, ids: [s.conversationId], assigneeId: s.agent.id, teamId: null });
    const soon = new Date(Date.now() + 10 * 60_000);
    await getDb().update(schema.conversations).set({ firstResponseDueAt: soon }).where(eq(schema.conversations.id, s.conversationId));
    expect(await warnSlaDue({ accountId: s.account.id, conversationId: s.conversationId, target: 'response', dueAt: soon.toISOString() })).toEqual({ warned: 1 });
    // A timer for a due time that moved since tells nobody.
    expect((await warnSlaDue({ accountId: s.account.id, conversationId: s.conversationId, target: 'response', dueAt: new Date(0).toISOString() })).warned).toBe(0);

    const past = new Date(Date.now() - 1000);
    await getDb().update(schema.conversations).set({ firstResponseDueAt: past }).where(eq(schema.conversations.id, s.conversationId));
    const before = await lastEventId(s.account.id);
    expect((await checkSlaBreach({ accountId: s.account.id, conversationId: s.conversationId, target: 'response', dueAt: past.toISOString() })).breached).toBe(true);
    await drainEvents(s.account.id, { after: before });
    const kinds = (await listNotifications({ accountId: s.account.id, userId: s.agent.id })).map((n) => [n.kind, n.title]);
    expect(kinds).toContainEqual(['sla_warning', `SLA first response due in 10 min: #${s.conversationId} Printer on fire`]);
    expect(kinds).toContainEqual(['sla_breached', `SLA breached (first response): #${s.conversationId} Printer on fire`]);
  });
});
