import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import { createArticle, trashArticle } from '../../app/models/knowledge-base/articles.server';
import { createKnowledgeBase } from '../../app/models/knowledge-base/knowledge-bases.server';
import { openConversation } from '../../app/models/inbox/conversations.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { createTestAccount } from '../factories';
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
  const kb = await createKnowledgeBase({ accountId: a.account.id, actorId: a.owner.id, name: 'Help' });
  const who = { accountId: a.account.id, knowledgeBaseId: kb.id, actorId: a.owner.id };
  const pay = await createArticle({ ...who, title: 'Pay an invoice', body: '<p>Pay by card or transfer.</p>', publish: true });
  const draft = await createArticle({ ...who, title: 'Invoice drafts', body: '<p>Not yet.</p>' });
  const trashed = await createArticle({ ...who, title: 'Old invoice rules', body: '<p>Gone.</p>', publish: true });
  await trashArticle({ ...who, id: trashed.id });
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: `help-${crypto.randomBytes(3).toString('hex')}@x.test` });
  const { conversation } = await openConversation({
    accountId: a.account.id,
    inboxId: inbox.id,
    sourceType: 'email',
    subject: 'Invoice question',
    contact: { email: 'ada@example.com', name: 'Ada' },
    message: { kind: 'incoming', text: 'How do I pay?' },
  });
  const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  const get = (path: string) => app.request(path, { domain: a.domain, cookie });
  return { ...a, kb, pay, draft, trashed, conversation, get };
}

describe('linking a help-centre article from a reply (attachArticle)', () => {
  it('finds only published, untrashed articles of the account, with their public address', async () => {
    const s = await setup();
    const other = await setup();
    const res = await s.get('/article/attach-article?text=invoice');
    expect(res.status).toBe(200);
    const { articles } = JSON.parse(res.text) as { articles: { id: number; title: string; url: string }[] };
    expect(articles.map((x) => x.id)).toEqual([s.pay.id]);
    expect(articles[0].url).toMatch(new RegExp(`^https?://${s.domain}\\.[^/]+/hc/${s.kb.slug}/articles/${s.pay.id}-pay-an-invoice$`));
    expect(JSON.parse((await other.get('/article/attach-article?text=invoice')).text).articles.map((x: { id: number }) => x.id)).toEqual([other.pay.id]);
    // A hidden help centre's articles are not offered (their links would not open).
    await getDb().update(schema.knowledgeBases).set({ docsVisible: false }).where(eq(schema.knowledgeBases.id, s.kb.id));
    expect(JSON.parse((await s.get('/article/attach-article?text=invoice')).text).articles).toEqual([]);
  });

  it('works without JavaScript on the conversation page: ?aq= lists them, ?article= puts the link in the reply box', async () => {
    const s = await setup();
    const page = `/inbox/${s.conversation.id}`;
    const listed = await s.get(`${page}?aq=invoice`);
    expect(listed.status).toBe(200);
    expect(listed.text).toContain(`?article=${s.pay.id}`);
    expect(listed.text).not.toContain(`?article=${s.draft.id}`);
    expect(listed.text).not.toContain(`?article=${s.trashed.id}`);
    const picked = await s.get(`${page}?article=${s.pay.id}`);
    expect(picked.text).toMatch(new RegExp(`<textarea[^>]*>Pay an invoice: https?://${s.domain}\\.[^<]*/hc/${s.kb.slug}/articles/${s.pay.id}-pay-an-invoice</textarea>`));
    // A draft or another account's article is never put in the box.
    const other = await setup();
    expect((await s.get(`${page}?article=${other.pay.id}`)).text).not.toContain('/hc/');
    expect((await s.get(`${page}?article=${s.draft.id}`)).text).not.toContain('Invoice drafts:');
  });
});
