/**
 * Knowledge base at scale: 50,000 articles in one knowledge base (issue 13). Ceilings, p95 of the model calls the
 * routes make (server time): public search < 50 ms, public article page < 30 ms (with its related articles, in each
 * list order), agent article list < 150 ms with every filter and sort, Version Control's recent versions < 150 ms. Run: npm run bench:kb   (BENCH_SCALE=0.1 for a quick run)
 */
import os from 'node:os';
import { sql } from 'drizzle-orm';
import { benchDatabase, measure } from './support';

const ARTICLES = Math.round(50_000 * Number(process.env.BENCH_SCALE ?? 1));

async function main() {
  const server = await benchDatabase('kb');
  const { getDb, closeDb } = await import('../db/client');
  const { createTestAccount } = await import('../tests/factories');
  const { createKnowledgeBase } = await import('../app/models/knowledge-base/knowledge-bases.server');
  const { createCategory } = await import('../app/models/knowledge-base/categories.server');
  const { pageArticles } = await import('../app/models/knowledge-base/articles.server');
  const { publicArticle, relatedArticles, searchPublicArticles, findPublicKnowledgeBase } = await import('../app/models/knowledge-base/public.server');
  const { listRecentVersions } = await import('../app/models/knowledge-base/help-settings.server');
  const { ARTICLE_FILTERS, ARTICLE_SORTS } = await import('../app/models/knowledge-base/constants');
  const db = getDb();

  const t0 = Date.now();
  const a = await createTestAccount({ domain: 'benchkb' });
  const who = { accountId: a.account.id, actorId: a.owner.id };
  const kb = await createKnowledgeBase({ ...who, name: 'Help' });
  const cats: number[] = [];
  for (let i = 0; i < 10; i++) cats.push((await createCategory({ ...who, knowledgeBaseId: kb.id, name: `Category ${i}` })).id);
  const words = ['refund', 'invoice', 'login', 'password', 'shipping', 'parcel', 'broken', 'upgrade', 'cancel', 'discount', 'delivery', 'warranty', 'account', 'billing', 'export'];
  const w = sql.raw(`array[${words.map((x) => `'${x}'`).join(',')}]`);
  const c = sql.raw(`array[${cats.join(',')}]`);
  // Four in five published, one in ten draft, one in ten trashed; titles and bodies from a small vocabulary.
  await db.execute(sql`insert into kb_articles (account_id, knowledge_base_id, category_id, title, slug, body_html, body_text, status, trashed_at,
      published_title, published_slug, published_html, published_text, published_at, search_config, helpful_count, unhelpful_count, position, author_id)
    select ${a.account.id}, ${kb.id}, (${c})[1 + g % 10],
      initcap((${w})[1 + g % 15]) || ' ' || (${w})[1 + (g * 7) % 15] || ' guide ' || g, 'guide-' || g,
      '<p>How to ' || (${w})[1 + (g * 3) % 15] || ' and ' || (${w})[1 + (g * 11) % 15] || ' step by step, article ' || g || '.</p>',
      'How to ' || (${w})[1 + (g * 3) % 15] || ' and ' || (${w})[1 + (g * 11) % 15] || ' step by step, article ' || g || '.',
      case when g % 10 = 0 then 'draft' else 'published' end, case when g % 10 = 1 then now() else null end,
      initcap((${w})[1 + g % 15]) || ' ' || (${w})[1 + (g * 7) % 15] || ' guide ' || g, 'guide-' || g,
      '<p>How to ' || (${w})[1 + (g * 3) % 15] || ' step by step, article ' || g || '.</p>',
      'How to ' || (${w})[1 + (g * 3) % 15] || ' and ' || (${w})[1 + (g * 11) % 15] || ' step by step, article ' || g || '.',
      now() - (g || ' minutes')::interval, 'english'::regconfig, g % 13, g % 5, g, ${a.owner.id}
    from generate_series(1, ${ARTICLES}::int) g`);
  // The search dictionary, as publishing fills it (and as migration 0018 backfills it).
  await db.execute(sql`insert into kb_search_words (account_id, knowledge_base_id, word)
    select distinct a.account_id, a.knowledge_base_id, m[1] from kb_articles a,
      regexp_matches(lower(coalesce(a.published_title, '') || ' ' || coalesce(a.published_text, '')), '([[:alpha:]]{3,30})', 'g') m
    where a.status = 'published' on conflict do nothing`);
  // Every article's first version, and a second save for one in five (Version Control's list, ADR 058).
  await db.execute(sql`insert into kb_article_versions (account_id, article_id, number, title, slug, category_id, body_html, body_text, author_id, created_at)
    select a.account_id, a.id, n, a.title, a.slug, a.category_id, a.body_html, a.body_text, a.author_id, now() - ((a.position * 2 - n) || ' minutes')::interval
    from kb_articles a, generate_series(1, 2) n where a.knowledge_base_id = ${kb.id} and (n = 1 or a.position % 5 = 0)`);
  await db.execute(sql`analyze kb_article_versions`);
  await db.execute(sql`analyze kb_articles`);
  await db.execute(sql`analyze kb_search_words`);
  console.log(`seeded ${ARTICLES} articles in ${((Date.now() - t0) / 1000).toFixed(1)} s; load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);

  const [{ min }] = await db.execute<{ min: number }>(sql`select min(id)::int as min from kb_articles where knowledge_base_id = ${kb.id} and status = 'published' and trashed_at is null`);
  const scope = { accountId: a.account.id, knowledgeBaseId: kb.id };
  const rows: { label: string; p95: number; ceiling: number }[] = [];
  const run = async (label: string, ceiling: number, runs: number, fn: (i: number) => Promise<unknown>) => rows.push({ ...(await measure(label, runs, fn)), ceiling });

  const queries = ['refund', 'invoice login', 'pasword', 'shipping parcel', 'warranty', 'upgrade account billing'];
  await run('public search (kb lookup + search, typo included)', 50, 60, async (i) => {
    const found = await findPublicKnowledgeBase({ accountId: a.account.id, slug: kb.slug });
    await searchPublicArticles({ ...scope, q: queries[i % queries.length], language: found!.language, record: false });
  });
  const typos = ['pasword', 'invoces', 'shiping parcel', 'warrenty', 'zzzz nothing'];
  await run('public search, misspelt words only', 50, 50, async (i) => {
    await searchPublicArticles({ ...scope, q: typos[i % typos.length], language: 'en', record: false });
  });
  await run('public article page (kb lookup + article + related)', 30, 100, async (i) => {
    const found = await findPublicKnowledgeBase({ accountId: a.account.id, slug: kb.slug });
    const article = await publicArticle({ ...scope, id: min + ((i * 97) % (ARTICLES / 2)) * 2 + 1, countView: true });
    if (article) await relatedArticles({ ...scope, articleId: article.id, categoryId: article.categoryId, order: found!.articleOrder });
  });
  for (const order of ['newest', 'popular']) {
    await run(`public article page, related ordered ${order}`, 30, 50, async (i) => {
      await findPublicKnowledgeBase({ accountId: a.account.id, slug: kb.slug });
      const article = await publicArticle({ ...scope, id: min + ((i * 97) % (ARTICLES / 2)) * 2 + 1, countView: true });
      if (article) await relatedArticles({ ...scope, articleId: article.id, categoryId: article.categoryId, order });
    });
  }
  await run('version control: recent versions, first pages', 150, 20, (i) => listRecentVersions({ ...scope, page: 1 + (i % 3), pageSize: 25 }));
  for (const filter of ARTICLE_FILTERS) {
    for (const sort of ARTICLE_SORTS) {
      await run(`agent list filter=${filter.value} sort=${sort.value}`, 150, 15, (i) => pageArticles({ ...scope, filter: filter.value, sort: sort.value, page: 1 + (i % 3) }));
    }
  }
  await run('agent list search "refund" + category', 150, 15, () => pageArticles({ ...scope, filter: 'all', sort: 'dateModify', q: 'refund', categoryId: cats[3] }));
  const listed = (await pageArticles({ ...scope, filter: 'all' })).total;
  const lastPage = Math.ceil(listed / 50);
  await run('agent list last page', 150, 10, () => pageArticles({ ...scope, filter: 'all', sort: 'titleAZ', page: lastPage }));
  // Past the middle a page is read from the other end, so the middle page is the deepest one.
  await run('agent list middle page, sort by rating', 150, 10, () => pageArticles({ ...scope, filter: 'all', sort: 'ratingHigh', page: Math.ceil(lastPage / 2) }));
  await run('agent list middle page, sort by title', 150, 10, () => pageArticles({ ...scope, filter: 'all', sort: 'titleAZ', page: Math.ceil(lastPage / 2) }));

  console.log(`\nload ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  let failed = 0;
  for (const r of rows) {
    const ok = r.p95 < r.ceiling;
    if (!ok) failed++;
    console.log(`${ok ? 'ok  ' : 'OVER'} ${r.label.padEnd(58)} p95 ${r.p95.toFixed(1).padStart(7)} ms  ceiling ${r.ceiling} ms`);
  }
  await closeDb();
  await server.stop();
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
