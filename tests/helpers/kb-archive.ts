import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { eq } from 'drizzle-orm';
import { getDb, schema } from '../../db/client';
import { createArticle, listVersions, publishVersion, trashArticle, updateArticle } from '../../app/models/knowledge-base/articles.server';
import { archiveLines } from '../../app/models/knowledge-base/backup.server';
import { createCategory } from '../../app/models/knowledge-base/categories.server';
import { saveKbImage } from '../../app/models/knowledge-base/images.server';
import { createKnowledgeBase, updateKnowledgeBaseSettings } from '../../app/models/knowledge-base/knowledge-bases.server';
import { saveRedirect } from '../../app/models/knowledge-base/redirects.server';
import { createTestAccount, createTestUser } from '../factories';
import { makePng } from './png';

/** A knowledge base with a bit of everything a backup holds. */
export async function richKnowledgeBase(name = 'Help') {
  const acc = await createTestAccount();
  const editor = await createTestUser({ accountId: acc.account.id, roleKind: 'admin' });
  const kb = await createKnowledgeBase({ accountId: acc.account.id, actorId: acc.owner.id, name });
  const who = { accountId: acc.account.id, actorId: acc.owner.id, knowledgeBaseId: kb.id };
  await updateKnowledgeBaseSettings({
    ...who,
    id: kb.id,
    patch: {
      helpName: 'Acme help',
      language: 'en',
      seoTitle: 'Acme answers',
      seoDescription: 'Everything',
      gaKey: 'G-ABC123',
      customCss: 'body{color:red}',
      customJs: 'console.log(1)',
    },
  });
  const billing = await createCategory({ ...who, name: 'Billing', description: 'Money' });
  const account = await createCategory({ ...who, name: 'Account' });
  const image = await saveKbImage({ accountId: acc.account.id, knowledgeBaseId: kb.id, filename: 'billing.png', bytes: makePng(16, 16), userId: acc.owner.id });
  // Customization, Advanced and Version Control (ADR 058), all away from their defaults.
  await updateKnowledgeBaseSettings({
    ...who,
    id: kb.id,
    patch: {
      logoToken: image.token,
      brandColor: '#0f766e',
      headerTextColor: '#ffffff',
      headerLinks: [{ label: 'Shop', url: 'https://shop.example.com' }],
      articleFeedback: false,
      showLastUpdated: false,
      showViewCount: true,
      relatedArticles: false,
      articleOrder: 'popular',
      versionsKept: 50,
    },
  });
  const pay = await createArticle({
    ...who,
    title: 'Pay an invoice',
    categoryId: billing.id,
    body: `<p>Open <b>Billing</b> and pay the refund</p><p><img src="${image.url}" alt="Billing" /></p>`,
    publish: true,
  });
  await updateArticle({
    ...who,
    actorId: editor.id,
    id: pay.id,
    title: 'Pay an invoice',
    categoryId: billing.id,
    body: '<p>Open Billing, then Pay (draft)</p>',
  });
  const reset = await createArticle({
    ...who,
    title: 'Reset your password',
    categoryId: account.id,
    body: '<p>Click <a href="https://example.com/reset">reset</a></p>',
    seoTitle: 'Reset password',
  });
  await updateArticle({ ...who, id: reset.id, title: 'Reset a password', categoryId: account.id, body: '<p>Click reset</p>', publish: true });
  const versions = (await listVersions({ ...who, articleId: reset.id }))!.versions;
  await publishVersion({ ...who, articleId: reset.id, versionId: versions[1].id });
  const old = await createArticle({ ...who, title: 'Old news', body: '<p>gone</p>', publish: true });
  await trashArticle({ ...who, id: old.id });
  await getDb()
    .insert(schema.kbArticleFeedback)
    .values([
      { accountId: acc.account.id, articleId: pay.id, visitorKey: 'v1', helpful: true },
      { accountId: acc.account.id, articleId: pay.id, visitorKey: 'v2', helpful: false },
    ]);
  await getDb().update(schema.kbArticles).set({ helpfulCount: 1, unhelpfulCount: 1, viewCount: 7 }).where(eq(schema.kbArticles.id, pay.id));
  await saveRedirect({ accountId: acc.account.id, knowledgeBaseId: kb.id, source: '/old-guide', destination: `/articles/${pay.id}-pay-an-invoice` });
  return { ...acc, editor, kb, who, pay, reset, old, image };
}

export async function backupToFile(scope: { accountId: number; knowledgeBaseId: number }, kind: 'backup' | 'export' = 'backup') {
  const file = path.join(os.tmpdir(), `kb-backup-${process.pid}-${Math.random().toString(36).slice(2)}.jsonl${kind === 'backup' ? '.gz' : ''}`);
  let text = '';
  for await (const chunk of archiveLines({ ...scope, kind })) text += chunk;
  fs.writeFileSync(file, kind === 'backup' ? zlib.gzipSync(text) : text);
  return { file, text };
}

/**
 * The records with the ids that only mean something inside one database replaced by their order of first
 * appearance (per kind), and the manifest's time and source dropped: what must be equal after a round trip.
 */
export function normalise(text: string) {
  const lines = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const maps: Record<string, Map<unknown, number>> = { category: new Map(), article: new Map(), version: new Map(), image: new Map() };
  const ref = (kind: string, id: unknown) => {
    if (id === null || id === undefined) return id;
    const m = maps[kind];
    if (!m.has(id)) m.set(id, m.size + 1);
    return m.get(id);
  };
  return lines.map((r) => {
    const out = { ...r };
    if (r.t === 'manifest') {
      delete out.createdAt;
      delete out.source;
    }
    if (r.t === 'category') out.id = ref('category', r.id);
    if (r.t === 'article') {
      out.id = ref('article', r.id);
      out.categoryId = ref('category', r.categoryId);
      out.publishedVersionId = ref('version', r.publishedVersionId);
    }
    if (r.t === 'version') {
      out.id = ref('version', r.id);
      out.articleId = ref('article', r.articleId);
      out.categoryId = ref('category', r.categoryId);
    }
    if (r.t === 'feedback') out.articleId = ref('article', r.articleId);
    if (r.t === 'image') {
      out.id = ref('image', r.id);
      out.articleId = ref('article', r.articleId);
    }
    return out;
  });
}
