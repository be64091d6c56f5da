/**
 * Knowledge-base backup at scale (issue 13, ADR 059): a backup of a 5,000-article knowledge base with versions and
 * images streams, so its memory does not grow with the knowledge base (compared with a 500-article one), and it
 * restores to an identical knowledge base (export → restore → export, compared normalised).
 * Run: npm run bench:kb-backup   (BENCH_SCALE=0.2 for a quick run)
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { sql } from 'drizzle-orm';
import { benchDatabase } from './support';

const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const LARGE = Math.round(5_000 * SCALE);
const SMALL = Math.round(500 * SCALE);
const VERSIONS = 3;
/** One image for every IMAGE_EVERY articles. */
const IMAGE_EVERY = 5;

type Mem = { rss: number; heap: number };

/** Runs fn while sampling memory every 50 ms (after a collection when --expose-gc): the peaks above the start. */
async function withMemory<T>(fn: () => Promise<T>): Promise<{ value: T; seconds: number; peak: Mem }> {
  global.gc?.();
  const before = process.memoryUsage();
  const peak = { rss: before.rss, heap: before.heapUsed };
  const sample = () => {
    const m = process.memoryUsage();
    peak.rss = Math.max(peak.rss, m.rss);
    peak.heap = Math.max(peak.heap, m.heapUsed);
  };
  let n = 0;
  const timer = setInterval(() => {
    if (++n % 4 === 0) global.gc?.();
    sample();
  }, 50);
  const t0 = performance.now();
  const value = await fn();
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(timer);
  sample();
  return { value, seconds, peak: { rss: peak.rss - before.rss, heap: peak.heap - before.heapUsed } };
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

async function main() {
  const server = await benchDatabase('kbbackup');
  const { getDb, closeDb, schema } = await import('../db/client');
  const { createTestAccount } = await import('../tests/factories');
  const { createKnowledgeBase } = await import('../app/models/knowledge-base/knowledge-bases.server');
  const { createCategory } = await import('../app/models/knowledge-base/categories.server');
  const { archiveStream, archiveLines, restoreBackup } = await import('../app/models/knowledge-base/backup.server');
  const { writeStoredFile } = await import('../app/models/storage/files.server');
  const { normalise } = await import('../tests/helpers/kb-archive');
  const { makePng } = await import('../tests/helpers/png');
  const db = getDb();
  const a = await createTestAccount({ domain: 'benchkbbackup' });
  const who = { accountId: a.account.id, actorId: a.owner.id };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-backup-bench-'));

  async function seed(name: string, articles: number) {
    const t0 = Date.now();
    const kb = await createKnowledgeBase({ ...who, name });
    const cats: number[] = [];
    for (let i = 0; i < 12; i++) cats.push((await createCategory({ ...who, knowledgeBaseId: kb.id, name: `Category ${i}` })).id);
    const c = sql.raw(`array[${cats.join(',')}]`);
    // About 2 KB of text per body, varied enough that gzip does not make it vanish.
    const body = sql`'<h2>Article ' || g || '</h2>' || (select string_agg('<p>' || md5(g::text || '-' || p) || ' step ' || p || ' of the guide to ' || md5(p::text) || '.</p>', '') from generate_series(1, 24) p)`;
    await db.execute(sql`insert into kb_articles (account_id, knowledge_base_id, category_id, title, slug, body_html, body_text, status,
        published_title, published_slug, published_html, published_text, published_at, search_config, position, author_id, helpful_count, view_count)
      select ${a.account.id}, ${kb.id}, (${c})[1 + g % 12], 'Guide ' || g, 'guide-' || g, ${body}, 'text of guide ' || g,
        case when g % 10 = 0 then 'draft' else 'published' end,
        case when g % 10 = 0 then null else 'Guide ' || g end, case when g % 10 = 0 then null else 'guide-' || g end,
        case when g % 10 = 0 then null else ${body} end, case when g % 10 = 0 then null else 'published text of guide ' || g end,
        case when g % 10 = 0 then null else now() end, 'english'::regconfig, g, ${a.owner.id}, g % 7, g % 100
      from generate_series(1, ${articles}::int) g`);
    await db.execute(sql`insert into kb_article_versions (account_id, article_id, number, title, slug, category_id, body_html, body_text, author_id)
      select a.account_id, a.id, n, a.title, a.slug, a.category_id, a.body_html || '<p>revision ' || n || '</p>', a.body_text, a.author_id
        from kb_articles a, generate_series(1, ${VERSIONS}::int) n where a.knowledge_base_id = ${kb.id}`);
    await db.execute(sql`update kb_articles a set published_version_id = v.id from kb_article_versions v
      where v.article_id = a.id and v.number = ${VERSIONS} and a.knowledge_base_id = ${kb.id} and a.status = 'published'`);
    // Images: real PNGs of random pixels (about 12 KB each, incompressible), one per IMAGE_EVERY articles.
    const images = Math.ceil(articles / IMAGE_EVERY);
    for (let i = 0; i < images; i++) {
      const png = makePng(64, 64, [i % 256, (i * 7) % 256, (i * 13) % 256]);
      // A private ancillary chunk of random bytes after the header: still a valid PNG, as heavy as a small screenshot.
      const pad = crypto.randomBytes(12_000);
      const chunk = Buffer.alloc(12 + pad.length);
      chunk.writeUInt32BE(pad.length, 0);
      chunk.write('prVt', 4, 'ascii');
      pad.copy(chunk, 8);
      chunk.writeUInt32BE(zlib.crc32(chunk.subarray(4, 8 + pad.length)), 8 + pad.length);
      const heavy = Buffer.concat([png.subarray(0, 33), chunk, png.subarray(33)]);
      const { storageKey } = await writeStoredFile(a.account.id, heavy);
      await db.insert(schema.kbImages).values({
        accountId: a.account.id,
        knowledgeBaseId: kb.id,
        token: crypto.randomBytes(16).toString('hex'),
        storageKey,
        filename: `image-${i}.png`,
        contentType: 'image/png',
        size: heavy.length,
      });
    }
    await db.execute(sql`insert into kb_search_words (account_id, knowledge_base_id, word)
      select distinct a.account_id, a.knowledge_base_id, m[1] from kb_articles a,
        regexp_matches(lower(coalesce(a.published_title, '') || ' ' || coalesce(a.published_text, '')), '([[:alpha:]]{3,30})', 'g') m
      where a.knowledge_base_id = ${kb.id} and a.status = 'published' on conflict do nothing`);
    console.log(`seeded ${name}: ${articles} articles, ${articles * VERSIONS} versions, ${images} images in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return { kb, images };
  }

  /** The backup as a download reads it: the response's web stream, written to a file. */
  async function backup(kbId: number, file: string) {
    const stream = archiveStream({ accountId: a.account.id, knowledgeBaseId: kbId, kind: 'backup' });
    await pipeline(Readable.fromWeb(stream as never), fs.createWriteStream(file));
    return fs.statSync(file).size;
  }

  const small = await seed('Small', SMALL);
  const large = await seed('Large', LARGE);
  console.log(
    `load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}${global.gc ? '' : ' (run with --expose-gc for live-heap figures)'}\n`,
  );

  const rows: { label: string; seconds: number; bytes?: number; peak: Mem }[] = [];
  // A warm-up so that the first measured run does not pay for module loading and JIT.
  await backup(small.kb.id, path.join(dir, 'warm.gz'));
  for (const [label, kb, articles] of [
    ['small', small.kb, SMALL],
    ['large', large.kb, LARGE],
  ] as const) {
    const file = path.join(dir, `${label}.gz`);
    const r = await withMemory(() => backup(kb.id, file));
    rows.push({ label: `backup ${articles} articles`, seconds: r.seconds, bytes: r.value, peak: r.peak });
  }
  const restored = await withMemory(() =>
    restoreBackup({ accountId: a.account.id, actorId: a.owner.id, file: path.join(dir, 'large.gz'), target: { newName: 'Restored' }, customCode: true }),
  );
  if (!restored.value.ok) throw new Error(restored.value.error);
  rows.push({ label: `restore ${LARGE} articles (new knowledge base)`, seconds: restored.seconds, peak: restored.peak });

  for (const r of rows) {
    console.log(
      `${r.label.padEnd(44)} ${r.seconds.toFixed(2).padStart(6)} s${r.bytes ? `  ${mb(r.bytes).padStart(9)}` : ''.padStart(11)}  peak heap +${mb(
        r.peak.heap,
      ).padStart(9)}  peak rss +${mb(r.peak.rss).padStart(9)}`,
    );
  }
  const [s, l] = rows;
  const heapRatio = l.peak.heap / Math.max(s.peak.heap, 1);
  console.log(
    `\nlarge/small: ${(LARGE / SMALL).toFixed(0)}× the articles, ${(l.bytes! / s.bytes!).toFixed(1)}× the bytes, ${heapRatio.toFixed(2)}× the peak heap`,
  );

  // Identical content after the round trip (ids and the manifest's time and source aside, ADR 059).
  const text = async (kbId: number) => {
    let out = '';
    for await (const chunk of archiveLines({ accountId: a.account.id, knowledgeBaseId: kbId, kind: 'backup' })) out += chunk;
    return out;
  };
  const before = normalise(await text(large.kb.id));
  const after = normalise(await text(restored.value.knowledgeBaseId));
  (after[1] as { name: string }).name = (before[1] as { name: string }).name;
  const same = JSON.stringify(before) === JSON.stringify(after);
  console.log(`round trip: ${same ? 'identical' : 'DIFFERENT'} (${before.length} records)`);

  fs.rmSync(dir, { recursive: true, force: true });
  await closeDb();
  await server.stop();
  // Memory flat: the large backup's peak heap within 2× the small one's (or under 32 MB above the start).
  const flat = heapRatio < 2 || l.peak.heap < 32 * 1024 * 1024;
  if (!flat) console.log('OVER: the backup memory grows with the knowledge base');
  process.exit(same && flat ? 0 : 1);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
