import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createWebInbox, deleteWebInbox, listWebInboxesWithCounts, renameWebInbox } from '../../app/models/channels/messenger-settings.server';
import { openConversation } from '../../app/models/inbox/conversations.server';
import { createInbox, InboxNameTakenError } from '../../app/models/inbox/inboxes.server';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

async function setup() {
  const a = await createTestAccount();
  const who = { accountId: a.account.id, actorId: a.owner.id };
  const web = await createWebInbox({ ...who, name: 'Website chat' });
  await openConversation({
    accountId: a.account.id,
    inboxId: web.id,
    sourceType: 'web',
    subject: 'Where is my order?',
    contact: { email: 'cara@example.test', name: 'Cara' },
    message: { kind: 'incoming', text: 'Hello' },
  });
  return { ...a, who, web };
}

const conversationsOf = (accountId: number, inboxId: number) =>
  getDb()
    .select()
    .from(schema.conversations)
    .where(and(eq(schema.conversations.accountId, accountId), eq(schema.conversations.inboxId, inboxId)));

describe('messenger inboxes: rename and delete', () => {
  it('renames and deletes only the account’s web inboxes; the count of conversations that go with it is known', async () => {
    const a = await setup();
    const email = await createInbox({ ...a.who, name: 'Support mail', channelType: 'email', email: `help@${a.domain}.test` });
    expect((await listWebInboxesWithCounts({ accountId: a.account.id })).map((i) => [i.name, i.conversationCount])).toEqual([['Website chat', 1]]);
    expect((await renameWebInbox({ ...a.who, id: a.web.id, name: 'Store chat' }))?.name).toBe('Store chat');
    await expect(renameWebInbox({ ...a.who, id: a.web.id, name: 'Support mail' })).rejects.toBeInstanceOf(InboxNameTakenError);
    // Not a web inbox, or another account's: nothing happens.
    expect(await renameWebInbox({ ...a.who, id: email.id, name: 'Hijack' })).toBeUndefined();
    expect(await deleteWebInbox({ ...a.who, id: email.id })).toBeUndefined();
    const other = await createTestAccount();
    expect(await deleteWebInbox({ accountId: other.account.id, actorId: other.owner.id, id: a.web.id })).toBeUndefined();
    expect(await conversationsOf(a.account.id, a.web.id)).toHaveLength(1);
    expect((await deleteWebInbox({ ...a.who, id: a.web.id }))?.id).toBe(a.web.id);
    expect(await conversationsOf(a.account.id, a.web.id)).toHaveLength(0);
    expect(await listWebInboxesWithCounts({ accountId: a.account.id })).toEqual([]);
  });

  it('the page renames with "Inbox Updated", confirms a delete naming the conversations, deletes with "Inbox Deleted"; agents without the permission are refused', async () => {
    const a = await setup();
    const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    const page = await app.request('/settings/chat-messenger', { domain: a.domain, cookie });
    expect(page.text).toContain('Are you sure you want to delete ? Its 1 conversation will be deleted with it');
    const bad = await app.request('/settings/chat-messenger', { domain: a.domain, cookie, form: { intent: 'rename', inboxId: String(a.web.id), name: 'x' } });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Length must be at least 2 characters');
    const renamed = await app.request('/settings/chat-messenger', { domain: a.domain, cookie, form: { intent: 'rename', inboxId: String(a.web.id), name: 'Shop chat' } });
    expect(renamed.status).toBe(302);
    const after = await app.request('/settings/chat-messenger', { domain: a.domain, cookie: `${cookie}; ${String(renamed.headers['set-cookie'] ?? '').split(';')[0]}` });
    expect(after.text).toContain('Shop chat');
    expect(after.text).toContain('Inbox Updated');

    const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
    const agentCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: agent.id });
    expect((await app.request('/settings/chat-messenger', { domain: a.domain, cookie: agentCookie, form: { intent: 'delete', inboxId: String(a.web.id) } })).status).toBe(403);
    expect(await conversationsOf(a.account.id, a.web.id)).toHaveLength(1);

    const missing = await app.request('/settings/chat-messenger', { domain: a.domain, cookie, form: { intent: 'delete', inboxId: '999999' } });
    expect(missing.status).toBe(404);
    const deleted = await app.request('/settings/chat-messenger', { domain: a.domain, cookie, form: { intent: 'delete', inboxId: String(a.web.id) } });
    expect(deleted.status).toBe(302);
    expect(deleted.headers.location).toBe('/settings/chat-messenger');
    expect(await conversationsOf(a.account.id, a.web.id)).toHaveLength(0);
  });
});
