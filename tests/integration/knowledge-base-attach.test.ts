import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConversation } from '../../app/models/inbox/conversations.server';
import { createInbox } from '../../app/models/inbox/inboxes.server';
import { createArticle } from '../../app/models/knowledge-base/articles.server';
import { createKnowledgeBase } from '../../app/models/knowledge-base/knowledge-bases.server';
import { createTestAccount } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

async function setup(prefix: string) {
  const a = await createTestAccount();
  const cookie = await sessionCookie({ domain: a.domain, accountId: a.account.id, userId: a.owner.id });
  const kb = await createKnowledgeBase({ accountId: a.account.id, actorId: a.owner.id, name: `${prefix} help` });
  const who = { accountId: a.account.id, knowledgeBaseId: kb.id, actorId: a.owner.id };
  const published = await createArticle({ ...who, title: `${prefix} reset your password`, body: '<p>Open settings</p>', publish: true });
  const draft = await createArticle({ ...who, title: `${prefix} password draft`, body: '<p>not yet</p>' });
  const inbox = await createInbox({ accountId: a.account.id, actorId: a.owner.id, name: 'Support', channelType: 'email', email: `help@${a.domain}.test` });
  const { conversation } = await openConversation({
    accountId: a.account.id,
    inboxId: inbox.id,
    sourceType: 'email',
    subject: 'Locked out',
    contact: { email: 'cara@example.test', name: 'Cara' },
    message: { kind: 'incoming', text: 'I forgot my password' },
  });
  const get = (p: string) => app.request(p, { domain: a.domain, cookie });
  return { ...a, kb, published, draft, conversation, get };
}

describe('GET article/attachArticle (a link to an article in a reply)', () => {
  it("finds only the account's published articles, with their public URL, with and without JavaScript", async () => {
    const a = await setup('Alpha');
    const b = await setup('Beta');
    const json = await a.get('/knowledgebase/attach-article?text=password');
    expect(json.status).toBe(200);
    const { articles } = JSON.parse(json.text) as { articles: { id: number; title: string; url: string }[] };
    expect(articles.map((r) => r.title)).toEqual(['Alpha reset your password']);
    expect(articles[0].url).toMatch(new RegExp(`^http://${a.domain}\\..*/hc/${a.kb.slug}/articles/${a.published.id}-`));
    expect(json.text).not.toContain('Beta');
    expect(json.text).not.toContain('draft');

    // Without JavaScript: the conversation page searches (?aq=) and puts the URL into the reply box (?attach=).
    const page = await a.get(`/inbox/${a.conversation.id}?aq=password`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Alpha reset your password');
    expect(page.text).not.toContain('Alpha password draft');
    expect(page.text).not.toContain('Beta reset');
    const attached = await a.get(`/inbox/${a.conversation.id}?attach=${a.published.id}`);
    expect(attached.text).toMatch(new RegExp(`<textarea[^>]*>[^<]*/hc/${a.kb.slug}/articles/${a.published.id}-`));
    // Another account's article, or a draft, is never attached.
    for (const id of [b.published.id, a.draft.id]) {
      const res = await a.get(`/inbox/${a.conversation.id}?attach=${id}`);
      expect(res.status).toBe(200);
      expect(res.text).not.toMatch(/<textarea[^>]*>[^<]*\/hc\//);
    }
  });
});
