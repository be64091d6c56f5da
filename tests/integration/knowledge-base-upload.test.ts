import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArticle, getArticle } from '../../app/models/knowledge-base/articles.server';
import { createKnowledgeBase } from '../../app/models/knowledge-base/knowledge-bases.server';
import { listKbImages } from '../../app/models/knowledge-base/images.server';
import { createTestAccount, createTestUser } from '../factories';
import { sessionCookie, startTestApp } from '../helpers/http';
import { postMultipart as postMultipartTo } from '../helpers/multipart';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

let app: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

function postMultipart(
  path: string,
  opts: { domain: string; cookie: string; fields: Record<string, string>; file?: { name: string; filename: string; bytes: Buffer } },
) {
  return postMultipartTo(app.port, path, { ...opts, files: opts.file ? [{ ...opts.file, type: 'image/png' }] : [] });
}

async function setup() {
  const acc = await createTestAccount();
  const kb = await createKnowledgeBase({ accountId: acc.account.id, actorId: acc.owner.id, name: 'Help' });
  const cookie = await sessionCookie({ domain: acc.domain, accountId: acc.account.id, userId: acc.owner.id });
  return { ...acc, kb, cookie, scope: { accountId: acc.account.id, knowledgeBaseId: kb.id } };
}

const textareaOf = (html: string) => /<textarea[^>]*name="body"[^>]*>([\s\S]*?)<\/textarea>/.exec(html)?.[1] ?? '';

describe('image upload into an article body', () => {
  it('without JavaScript: stores the image and gives back the whole draft with the image at the end of the body', async () => {
    const { domain, cookie, kb, scope } = await setup();
    const res = await postMultipart(`/knowledgebase/${kb.id}/articles/new`, {
      domain,
      cookie,
      fields: { intent: 'upload-image', title: '', body: '<p>Typed so far</p>', seoTitle: 'Typed SEO title' },
      file: { name: 'image', filename: 'step-one.png', bytes: PNG },
    });
    expect(res.status).toBe(200);
    const [image] = await listKbImages(scope);
    expect(image).toMatchObject({ filename: 'step-one.png', contentType: 'image/png' });
    expect(textareaOf(res.text)).toBe(
      `&lt;p&gt;Typed so far&lt;/p&gt;\n&lt;p&gt;&lt;img src=&quot;/kb-images/${image.token}&quot; alt=&quot;step one&quot;&gt;&lt;/p&gt;`,
    );
    expect(res.text).toContain('value="Typed SEO title"');
    // The upload does not check the rest of the draft: no "Title is required" yet.
    expect(res.text).not.toContain('Title is required');
  });

  it('refuses a non-image or an oversized file on the image field with 400, keeping the draft, storing nothing', async () => {
    const { domain, cookie, kb, scope } = await setup();
    const cases = [
      { filename: 'notes.png', bytes: Buffer.from('%PDF-1.4\n'), message: 'notes.png is not a PNG, JPEG, GIF or WebP image' },
      { filename: 'huge.png', bytes: Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]), message: 'huge.png is larger than 5 MB' },
    ];
    for (const c of cases) {
      const res = await postMultipart(`/knowledgebase/${kb.id}/articles/new`, {
        domain,
        cookie,
        fields: { intent: 'upload-image', title: 'My draft', body: '<p>Keep me</p>' },
        file: { name: 'image', filename: c.filename, bytes: c.bytes },
      });
      expect(res.status).toBe(400);
      expect(res.text).toContain(c.message);
      expect(textareaOf(res.text)).toBe('&lt;p&gt;Keep me&lt;/p&gt;');
      expect(res.text).toContain('value="My draft"');
    }
    const none = await postMultipart(`/knowledgebase/${kb.id}/articles/new`, { domain, cookie, fields: { intent: 'upload-image', title: 'x', body: '' } });
    expect(none.status).toBe(400);
    expect(none.text).toContain('Choose an image to upload');
    expect(await listKbImages(scope)).toEqual([]);
  });

  it('a file chosen before Save draft is stored and added to the saved body', async () => {
    const { domain, cookie, kb, scope, account, owner } = await setup();
    const article = await createArticle({ accountId: account.id, knowledgeBaseId: kb.id, actorId: owner.id, title: 'Guide', body: '<p>One</p>' });
    const res = await postMultipart(`/knowledgebase/${kb.id}/articles/${article.id}`, {
      domain,
      cookie,
      fields: { intent: 'save', title: 'Guide', body: '<p>One</p>' },
      file: { name: 'image', filename: 'shot.png', bytes: PNG },
    });
    expect(res.status).toBe(302);
    const [image] = await listKbImages(scope);
    expect((await getArticle({ ...scope, id: article.id }))!.bodyHtml).toBe(`<p>One</p>\n<p><img src="/kb-images/${image.token}" alt="shot" /></p>`);
  });

  it("the editor's JSON upload answers the address, refuses agents without manage_articles and other accounts' knowledge bases", async () => {
    const { domain, cookie, kb, account } = await setup();
    const ok = await postMultipart(`/knowledgebase/${kb.id}/images`, { domain, cookie, fields: {}, file: { name: 'image', filename: 'a.png', bytes: PNG } });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.text)).toMatchObject({ url: expect.stringMatching(/^\/kb-images\/[0-9a-f]{32}$/), filename: 'a.png' });
    const bad = await postMultipart(`/knowledgebase/${kb.id}/images`, {
      domain,
      cookie,
      fields: {},
      file: { name: 'image', filename: 'a.png', bytes: Buffer.from('hello') },
    });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text)).toEqual({ error: 'a.png is not a PNG, JPEG, GIF or WebP image' });

    const other = await setup();
    const foreign = await postMultipart(`/knowledgebase/${kb.id}/images`, {
      domain: other.domain,
      cookie: other.cookie,
      fields: {},
      file: { name: 'image', filename: 'a.png', bytes: PNG },
    });
    expect(foreign.status).toBe(404);

    // An agent's default role reads articles but does not write them.
    const agent = await createTestUser({ accountId: account.id, roleKind: 'agent' });
    const agentCookie = await sessionCookie({ domain, accountId: account.id, userId: agent.id });
    const denied = await postMultipart(`/knowledgebase/${kb.id}/images`, {
      domain,
      cookie: agentCookie,
      fields: {},
      file: { name: 'image', filename: 'a.png', bytes: PNG },
    });
    expect(denied.status).toBe(403);
    const deniedForm = await postMultipart(`/knowledgebase/${kb.id}/articles/new`, {
      domain,
      cookie: agentCookie,
      fields: { intent: 'upload-image', title: 'x' },
      file: { name: 'image', filename: 'a.png', bytes: PNG },
    });
    expect(deniedForm.status).toBe(403);
    expect(await listKbImages({ accountId: account.id, knowledgeBaseId: kb.id })).toHaveLength(1);
  });
});
