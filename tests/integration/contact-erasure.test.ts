import { and, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, getSql, schema } from '../../db/client';
import { eraseContact, ERASED_SUBJECT } from '../../app/models/crm/erasure.server';
import { getFileStorage } from '../../app/models/storage/files.server';
import { createTestAccount, createTestUser } from '../factories';
import { seedAccountData } from '../helpers/account-data';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

const count = async (table: string, where: string, params: unknown[]) => {
  const [{ n }] = await getSql().unsafe(`select count(*)::int as n from ${table} where ${where}`, params as never[]);
  return Number(n);
};

describe('contact erasure', () => {
  it('anonymised: the contact, their messages, notes, answers and files go; the conversation stays without them; others untouched', async () => {
    const a = await createTestAccount();
    const seed = await seedAccountData(a.account.id, a.owner.id, { label: 'erase1' });
    const result = await eraseContact({ accountId: a.account.id, contactId: seed.contact.id, actorId: a.owner.id });
    expect(result?.mode).toBe('anonymise');
    expect(result?.counts).toMatchObject({ conversationsAnonymised: 1, conversationsDeleted: 0, messages: 1, files: 2, notes: 1, surveyResponses: 1, formResponses: 1 });

    const acc = a.account.id;
    expect(await count('contacts', 'account_id = $1 and id = $2', [acc, seed.contact.id])).toBe(0);
    expect(await count('messages', 'account_id = $1 and id = $2', [acc, seed.incoming.id])).toBe(0);
    expect(await count('attachments', 'account_id = $1', [acc])).toBe(0);
    expect(await count('crm_notes', 'account_id = $1', [acc])).toBe(0);
    expect(await count('survey_responses', 'account_id = $1', [acc])).toBe(0);
    expect(await count('form_responses', 'account_id = $1', [acc])).toBe(0);
    // The stored files are gone from the storage itself.
    expect(await getFileStorage().exists(seed.attachmentKey)).toBe(false);
    expect(await getFileStorage().exists(seed.uploadKey)).toBe(false);

    // The conversation is kept: the agent's reply stays; no contact, no subject, preview, search words or addresses of theirs.
    const [conv] = await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, seed.conversation.id));
    expect(conv).toMatchObject({ contactId: null, subject: ERASED_SUBJECT, messageCount: 1 });
    expect(conv.lastMessagePreview).not.toContain('4111');
    const [{ words }] = await getSql()`select coalesce(search::text, '') as words from conversations where id = ${seed.conversation.id}`;
    expect(words).not.toMatch(/jane|4111|erase1@/i);
    expect(words).toContain('on');
    const [reply] = await getDb().select().from(schema.messages).where(eq(schema.messages.id, seed.reply.id));
    expect(reply.text).toContain('We are on it');
    expect(reply.email).toBeNull();

    // Earlier events keep their type and time but not the contact's data; the erasure's own event holds ids and counts.
    const events = await getDb()
      .select()
      .from(schema.domainEvents)
      .where(and(eq(schema.domainEvents.accountId, acc), inArray(schema.domainEvents.type, ['contact_created', 'message_created', 'contact_erased'])));
    const dump = JSON.stringify(events);
    expect(dump).not.toMatch(/jane|4111|203\.0\.113\.9/i);
    const erased = events.find((e) => e.type === 'contact_erased')!;
    expect(erased.payload).toEqual({ contactId: seed.contact.id, mode: 'anonymise', counts: result!.counts });
    expect(erased.actorId).toBe(a.owner.id);

    // The other contact and their conversation are untouched; so is the knowledge-base image.
    expect(await count('contacts', 'id = $1', [seed.other.id])).toBe(1);
    expect(await count('messages', 'conversation_id = $1', [seed.otherConversation.id])).toBe(1);
    const [otherConv] = await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, seed.otherConversation.id));
    expect(otherConv.contactId).toBe(seed.other.id);
    expect(await count('kb_images', 'account_id = $1', [acc])).toBe(1);
  });

  it('delete mode: the conversations go with every message; another account with the same data is untouched', async () => {
    const a = await createTestAccount();
    const b = await createTestAccount();
    await getDb()
      .update(schema.accounts)
      .set({ settings: sql`${schema.accounts.settings} || '{"erasureConversations":"delete"}'::jsonb` })
      .where(eq(schema.accounts.id, a.account.id));
    const seed = await seedAccountData(a.account.id, a.owner.id, { label: 'erase2' });
    const seedB = await seedAccountData(b.account.id, b.owner.id, { label: 'erase2' });
    // Another account's contact id is not this account's contact.
    expect(await eraseContact({ accountId: a.account.id, contactId: seedB.contact.id, actorId: a.owner.id })).toBeNull();
    const result = await eraseContact({ accountId: a.account.id, contactId: seed.contact.id, actorId: a.owner.id });
    expect(result).toMatchObject({ mode: 'delete', counts: { conversationsDeleted: 1, messages: 2 } });
    expect(await count('conversations', 'id = $1', [seed.conversation.id])).toBe(0);
    expect(await count('messages', 'conversation_id = $1', [seed.conversation.id])).toBe(0);
    expect(await count('conversations', 'id = $1', [seed.otherConversation.id])).toBe(1);
    // Account b still has everything.
    expect(await count('contacts', 'id = $1', [seedB.contact.id])).toBe(1);
    expect(await count('messages', 'conversation_id = $1', [seedB.conversation.id])).toBe(2);
    expect(await getFileStorage().exists(seedB.attachmentKey)).toBe(true);
  });

  it('through the page: a typed confirmation, owners and admins only', async () => {
    const a = await createTestAccount();
    const seed = await seedAccountData(a.account.id, a.owner.id);
    const agent = await createTestUser({ accountId: a.account.id, roleKind: 'agent' });
    const agentCookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: agent.id });
    const owner = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
    const path = `/customers/${seed.contact.id}/erase`;
    expect((await app.request(path, { domain: a.domain, cookie: agentCookie, form: { intent: 'erase', confirm: 'ERASE' } })).status).toBe(403);
    const wrong = await app.request(path, { domain: a.domain, cookie: owner, form: { intent: 'erase', confirm: 'erase me' } });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('Type ERASE to confirm');
    expect(await count('contacts', 'id = $1', [seed.contact.id])).toBe(1);
    const done = await app.request(path, { domain: a.domain, cookie: owner, form: { intent: 'erase', confirm: 'ERASE' } });
    expect(done.status).toBe(302);
    expect(done.headers.location).toBe('/customers');
    expect(await count('contacts', 'id = $1', [seed.contact.id])).toBe(0);
    expect((await app.request(path, { domain: a.domain, cookie: owner })).status).toBe(404);
  });
});
