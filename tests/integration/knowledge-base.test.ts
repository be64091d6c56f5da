import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema } from '../../db/client';
import {
  createArticle,
  deleteArticle,
  getArticle,
  listVersions,
  moveArticle,
  listCategoryArticles,
  pageArticles,
  publishVersion,
  restoreArticle,
  restoreVersion,
  trashArticle,
  updateArticle,
} from '../../app/models/knowledge-base/articles.server';
import { createCategory, deleteCategory, listCategories, moveCategory, setCategorySequence } from '../../app/models/knowledge-base/categories.server';
import { createKnowledgeBase, deleteKnowledgeBase, getKnowledgeBase, listKnowledgeBases } from '../../app/models/knowledge-base/knowledge-bases.server';
import { globalSearch } from '../../app/models/search/registry.server';
import { FieldInputError } from '../../app/models/productivity/shared.server';
import { createTestAccount } from '../factories';

async function setup() {
  const acc = await createTestAccount();
  const kb = await createKnowledgeBase({ accountId: acc.account.id, actorId: acc.owner.id, name: 'Help', detail: 'Answers' });
  const who = { accountId: acc.account.id, actorId: acc.owner.id, knowledgeBaseId: kb.id };
  return { ...acc, kb, who };
}

describe('knowledge bases', () => {
  it('creates with a unique slug per account, counts, and deletes with everything in it', async () => {
    const { account, owner, kb, who } = await setup();
    const second = await createKnowledgeBase({ accountId: account.id, actorId: owner.id, name: 'Help' });
    expect(second.slug).toBe(`${kb.slug}-2`);
    const cat = await createCategory({ ...who, name: 'Billing' });
    await createArticle({ ...who, title: 'Invoices', categoryId: cat.id, body: '<p>x</p>' });
    const list = await listKnowledgeBases({ accountId: account.id });
    expect(list.find((r) => r.id === kb.id)).toMatchObject({ articleCount: 1, categoryCount: 1 });
    expect(await deleteKnowledgeBase({ accountId: account.id, actorId: owner.id, id: kb.id })).toBe(true);
    expect(await getKnowledgeBase({ accountId: account.id, id: kb.id })).toBeUndefined();
    const left = await getDb().select().from(schema.kbArticles).where(eq(schema.kbArticles.knowledgeBaseId, kb.id));
    expect(left).toHaveLength(0);
  });

  it("never reads or changes another account's knowledge base", async () => {
    const a = await setup();
    const b = await setup();
    expect(await getKnowledgeBase({ accountId: b.account.id, id: a.kb.id })).toBeUndefined();
    expect(await deleteKnowledgeBase({ accountId: b.account.id, actorId: b.owner.id, id: a.kb.id })).toBe(false);
    const art = await createArticle({ ...a.who, title: 'Secret draft', body: '' });
    expect(await getArticle({ accountId: b.account.id, knowledgeBaseId: a.kb.id, id: art.id })).toBeUndefined();
    expect(await trashArticle({ ...b.who, id: art.id })).toBeUndefined();
    // A category of another account cannot be given to an article.
    const foreign = await createCategory({ ...b.who, name: 'Theirs' });
    await expect(createArticle({ ...a.who, title: 'x', body: '', categoryId: foreign.id })).rejects.toBeInstanceOf(FieldInputError);
  });
});

describe('categories', () => {
  it('reorders with prev/next and move up/down', async () => {
    const { who } = await setup();
    const [x, y, z] = [await createCategory({ ...who, name: 'X' }), await createCategory({ ...who, name: 'Y' }), await createCategory({ ...who, name: 'Z' })];
    const order = async () => (await listCategories(who)).map((r) => r.name).join('');
    expect(await order()).toBe('XYZ');
    await setCategorySequence({ ...who, id: z.id, prevId: null, nextId: x.id });
    expect(await order()).toBe('ZXY');
    await moveCategory({ ...who, id: z.id, direction: 'down' });
    expect(await order()).toBe('XZY');
    await moveCategory({ ...who, id: y.id, direction: 'up' });
    expect(await order()).toBe('XYZ');
    await moveCategory({ ...who, id: x.id, direction: 'up' });
    expect(await order()).toBe('XYZ');
    expect(await deleteCategory({ ...who, id: y.id })).toBe(true);
    expect(await order()).toBe('XZ');
  });
});

describe('articles', () => {
  it('sanitises the body, keeps its text, and filters All/publish/Draft/Trash', async () => {
    const { who } = await setup();
    const pub = await createArticle({
      ...who,
      title: 'Reset your password',
      body: '<p onclick="x()">Click <b>Forgot</b></p><script>alert(1)</script><img src="javascript:alert(1)">',
      publish: true,
    });
    // An image whose source was refused is dropped, not kept empty (ADR 058).
    expect(pub.bodyHtml).toBe('<p>Click <b>Forgot</b></p>');
    expect(pub.bodyText).toBe('Click Forgot');
    expect(pub.status).toBe('published');
    expect(pub.publishedTitle).toBe('Reset your password');
    const draft = await createArticle({ ...who, title: 'Draft one', body: '' });
    const gone = await createArticle({ ...who, title: 'Old', body: '' });
    await trashArticle({ ...who, id: gone.id });
    const titles = async (filter: 'all' | 'publish' | 'draft' | 'trash') => (await pageArticles({ ...who, filter, sort: 'titleAZ' })).rows.map((r) => r.title);
    expect(await titles('all')).toEqual(['Draft one', 'Reset your password']);
    expect(await titles('publish')).toEqual(['Reset your password']);
    expect(await titles('draft')).toEqual(['Draft one']);
    expect(await titles('trash')).toEqual(['Old']);
    // Restoring moves it out of the trash; only trashed articles are deleted for good.
    expect(await deleteArticle({ ...who, id: draft.id })).toBe(false);
    await restoreArticle({ ...who, id: gone.id });
    expect(await titles('trash')).toEqual([]);
    expect(await titles('draft')).toEqual(['Draft one', 'Old']);
    await trashArticle({ ...who, id: gone.id });
    expect(await deleteArticle({ ...who, id: gone.id })).toBe(true);
  });

  it('sorts by title both ways, by rating and by date modified', async () => {
    const { who, account } = await setup();
    const b = await createArticle({ ...who, title: 'banana', body: '' });
    const a = await createArticle({ ...who, title: 'Apple', body: '' });
    const c = await createArticle({ ...who, title: 'cherry', body: '' });
    const set = (id: number, helpful: number, unhelpful: number) =>
      getDb()
        .update(schema.kbArticles)
        .set({ helpfulCount: helpful, unhelpfulCount: unhelpful })
        .where(and(eq(schema.kbArticles.accountId, account.id), eq(schema.kbArticles.id, id)));
    await set(a.id, 0, 5);
    await set(b.id, 40, 1);
    await set(c.id, 1, 0);
    await updateArticle({ ...who, id: a.id, title: 'Apple', body: '<p>new</p>' });
    const by = async (sort: 'titleAZ' | 'titleZA' | 'ratingHigh' | 'ratingLow' | 'dateModify') =>
      (await pageArticles({ ...who, sort })).rows.map((r) => r.title);
    expect(await by('titleAZ')).toEqual(['Apple', 'banana', 'cherry']);
    expect(await by('titleZA')).toEqual(['cherry', 'banana', 'Apple']);
    expect(await by('ratingHigh')).toEqual(['banana', 'cherry', 'Apple']);
    expect(await by('ratingLow')).toEqual(['Apple', 'cherry', 'banana']);
    expect((await by('dateModify'))[0]).toBe('Apple');
    expect((await pageArticles({ ...who, q: 'an' })).rows.map((r) => r.title)).toEqual(['banana']);
  });

  it('keeps a version of every save; the published version stays public while a draft is edited; restore and publish a chosen one', async () => {
    const { who } = await setup();
    const art = await createArticle({ ...who, title: 'Shipping', body: '<p>Two days</p>', publish: true });
    await updateArticle({ ...who, id: art.id, title: 'Shipping times', body: '<p>Three days</p>' });
    const saved = await getArticle({ ...who, id: art.id });
    expect(saved?.title).toBe('Shipping times');
    expect(saved?.publishedTitle).toBe('Shipping');
    expect(saved?.publishedHtml).toBe('<p>Two days</p>');
    const listed = await listVersions({ ...who, articleId: art.id });
    expect(listed?.versions.map((x) => x.number)).toEqual([2, 1]);
    expect(listed?.versions[0].authorFirstName).toBeTruthy();
    // Restore version 1 as the working copy: a third version; the public copy unchanged.
    const v1 = listed!.versions[1];
    const restored = await restoreVersion({ ...who, articleId: art.id, versionId: v1.id });
    expect(restored?.version.number).toBe(3);
    expect(restored?.article.title).toBe('Shipping');
    // Publish version 2.
    const v2 = listed!.versions[0];
    const published = await publishVersion({ ...who, articleId: art.id, versionId: v2.id });
    expect(published?.publishedTitle).toBe('Shipping times');
    expect(published?.publishedVersionId).toBe(v2.id);
  });

  it('moves articles up and down inside their category', async () => {
    const { who } = await setup();
    const cat = await createCategory({ ...who, name: 'Getting started' });
    const one = await createArticle({ ...who, title: 'One', body: '', categoryId: cat.id });
    await createArticle({ ...who, title: 'Two', body: '', categoryId: cat.id });
    const three = await createArticle({ ...who, title: 'Three', body: '', categoryId: cat.id });
    const order = async () => (await listCategoryArticles({ ...who, categoryId: cat.id })).map((r) => r.title).join(',');
    await moveArticle({ ...who, id: three.id, direction: 'up' });
    expect(await order()).toBe('One,Three,Two');
    await moveArticle({ ...who, id: one.id, direction: 'down' });
    expect(await order()).toBe('Three,One,Two');
  });
});

describe('global search', () => {
  it("has an Articles group: titles and text of the account's articles, drafts included, trash and other accounts not", async () => {
    const a = await setup();
    const b = await setup();
    const pub = await createArticle({ ...a.who, title: 'Quetzalcoatl guide', body: '<p>x</p>', publish: true });
    await createArticle({ ...a.who, title: 'Draft', body: '<p>about quetzalcoatl feathers</p>' });
    const gone = await createArticle({ ...a.who, title: 'Quetzalcoatl old', body: '' });
    await trashArticle({ ...a.who, id: gone.id });
    await createArticle({ ...b.who, title: 'Quetzalcoatl elsewhere', body: '' });
    const groups = await globalSearch({ accountId: a.account.id, q: 'quetzalcoatl' });
    const articles = groups.find((g) => g.group === 'Articles');
    expect(articles?.hits.map((h) => h.title)).toEqual(['Quetzalcoatl guide', 'Draft']);
    expect(articles?.hits[0].to).toBe(`/knowledgebase/${a.kb.id}/articles/${pub.id}`);
  });
});
