/**
 * Survey responses at scale (issue 14). Ceilings:
 *   - recording an answer, p95 server time at 200 concurrent respondents < 30 ms (what the in-app answer route does:
 *     visitor token, rate limit, recordAnswers; each respondent answers, thinks 2-6 s as a person reading the next
 *     question does, answers again: about 50 answers a second);
 *   - the results page, p95 for a survey with 1,000,000 responses < 200 ms (the loader's model calls);
 *   - the web survey page with everything it loads < 25 KB gzipped; the in-app module <= 12 KB gzipped and the
 *     widget's base script grows by <= 1 KB (against the `surveys` branch's widget when git can show it).
 * Run: npm run build && npm run bench:surveys   (BENCH_SCALE=0.1 for 100,000 responses)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { sql } from 'drizzle-orm';
import { benchDatabase, measure, percentile } from './support';

const RESPONSES = Math.round(1_000_000 * Number(process.env.BENCH_SCALE ?? 1));
const RESPONDENTS = 200;

async function main() {
  const server = await benchDatabase('surveys');
  const { getDb, closeDb } = await import('../db/client');
  const { createTestAccount } = await import('../tests/factories');
  const { publishedSurvey, ALL_TYPES, questionOf } = await import('../tests/helpers/surveys');
  const { recordAnswers } = await import('../app/models/surveys/responses.server');
  const { getSurveyResults, listTextAnswers, exportResponsesCsv } = await import('../app/models/surveys/results.server');
  const { createWebInbox } = await import('../app/models/channels/messenger-settings.server');
  const { startVisitor, visitorFromToken } = await import('../app/models/channels/widget.server');
  const { visitorRespondent } = await import('../app/models/surveys/in-app.server');
  const { enforceRateLimit } = await import('../app/utils/rate-limit.server');
  const db = getDb();
  const rows: { label: string; value: number; ceiling: number; unit: string }[] = [];

  const a = await createTestAccount({ domain: 'benchsurveys' });
  const who = { accountId: a.account.id, actorId: a.owner.id };

  // ------------------------------------------------------------------ 1. answers at 200 concurrent respondents
  const skipAnswers = process.env.BENCH_SKIP_ANSWERS === '1';
  const inApp = await publishedSurvey({ ...who, channel: 'in-app', types: ['csat', 'ces', 'text'] });
  const inbox = await createWebInbox({ ...who, name: 'Website' });
  const tokens: string[] = [];
  for (let i = 0; i < RESPONDENTS; i++) tokens.push((await startVisitor({ inbox })).token);
  const q = (t: Parameters<typeof questionOf>[1]) => questionOf(inApp.version!, t).id;
  const steps: [string, () => unknown][] = [
    [q('nps'), () => Math.floor(Math.random() * 11)],
    [q('csat'), () => 1 + Math.floor(Math.random() * 5)],
    [q('ces'), () => 1 + Math.floor(Math.random() * 7)],
    [q('text'), () => `Answer ${Math.random().toString(36).slice(2)}`],
  ];
  const samples: number[] = [];
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const t1 = Date.now();
  await Promise.all(
    (skipAnswers ? [] : tokens).map(async (token, n) => {
      await sleep(Math.random() * 4000);
      for (let round = 0; round < 2; round++) {
        const responseKey = `bench${n}x${round}xxxxxxxx`;
        for (let i = 0; i < steps.length; i++) {
          const started = process.hrtime.bigint();
          // What POST /public/widget/survey/answer does.
          const found = await visitorFromToken(token);
          await enforceRateLimit(`widget-survey:${found!.visitor.id}`, { limit: 120, windowMs: 60_000 });
          await recordAnswers({
            accountId: a.account.id,
            surveyId: inApp.survey.id,
            channel: 'in-app',
            responseKey,
            answers: { [steps[i][0]]: steps[i][1]() },
            complete: i === steps.length - 1,
            respondent: { respondentKey: visitorRespondent(found!.visitor), widgetVisitorId: found!.visitor.id, pageUrl: 'https://shop.example/' },
          });
          samples.push(Number(process.hrtime.bigint() - started) / 1e6);
          await sleep(2000 + Math.random() * 4000);
        }
      }
    }),
  );
  const seconds = (Date.now() - t1) / 1000;
  const p95 = percentile(samples, 95);
  if (!skipAnswers)
    console.log(
      `record an answer, ${RESPONDENTS} concurrent respondents: ${samples.length} answers in ${seconds.toFixed(1)} s (${(samples.length / seconds).toFixed(
        0,
      )}/s), p50 ${percentile(samples, 50).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${Math.max(...samples).toFixed(1)} ms`,
    );
  if (!skipAnswers) rows.push({ label: `record an answer, p95 at ${RESPONDENTS} concurrent respondents`, value: p95, ceiling: 30, unit: 'ms' });
  // The same work one answer at a time: the server's own cost, apart from the machine's load and the queueing.
  const one = await measure('record an answer, one at a time', 200, async (i) => {
    const found = await visitorFromToken(tokens[i % RESPONDENTS]);
    await enforceRateLimit(`widget-survey-seq:${found!.visitor.id}`, { limit: 120, windowMs: 60_000 });
    await recordAnswers({
      accountId: a.account.id,
      surveyId: inApp.survey.id,
      channel: 'in-app',
      responseKey: `seq${i}xxxxxxxxxxxx`,
      answers: { [steps[i % 4][0]]: steps[i % 4][1]() },
      complete: false,
      respondent: { respondentKey: visitorRespondent(found!.visitor), widgetVisitorId: found!.visitor.id },
    });
  });
  rows.push({ label: 'record an answer, one at a time, p95', value: one.p95, ceiling: 30, unit: 'ms' });

  // ------------------------------------------------------------------ 2. results at 1,000,000 responses
  const big = await publishedSurvey({ ...who, name: 'Big NPS', types: ['csat', 'ces', 'text', 'radio'] });
  const id = (t: Parameters<typeof questionOf>[1]) => questionOf(big.version!, t).id;
  const t2 = Date.now();
  // A year of responses in the order they came (as a table fills), nine in ten complete, two channels; every third
  // leaves a comment.
  await db.execute(sql`insert into survey_responses (account_id, survey_id, survey_version_id, channel, response_key, respondent_key, answers, complete, draft, started_at, updated_at, completed_at)
    select ${a.account.id}, ${big.survey.id}, ${big.version!.id}, case when g % 4 = 0 then 'in-app' else 'web' end, 'k' || g, 'r' || g,
      jsonb_strip_nulls(jsonb_build_object(
        ${id('nps')}::text, (g * 7) % 11,
        ${id('csat')}::text, 1 + (g * 3) % 5,
        ${id('ces')}::text, case when g % 10 = 0 then null else 1 + (g * 5) % 7 end,
        ${id('text')}::text, case when g % 3 = 0 then 'Comment number ' || g else null end,
        ${id('radio')}::text, case when g % 10 = 0 then null else jsonb_build_object('choice', 'Option ' || (1 + g % 3)) end)),
      g % 10 <> 0, false, now() - make_interval(secs => (${RESPONSES}::int - g) * (31536000.0 / ${RESPONSES}::int)), now(),
      case when g % 10 <> 0 then now() - make_interval(secs => (${RESPONSES}::int - g) * (31536000.0 / ${RESPONSES}::int)) + interval '2 minutes' else null end
    from generate_series(1, ${RESPONSES}::int) g`);
  // The deltas those responses would have appended, as a fold leaves them: one row per question, value, day, channel.
  await db.execute(sql`insert into survey_result_deltas (account_id, survey_id, question_id, value_key, day, channel, n, folded)
    select ${a.account.id}, ${big.survey.id}, question_id, value_key, day, channel, count(*)::int, true from (
      select r.started_at::date as day, r.channel, '' as question_id, 'responses' as value_key from survey_responses r where r.survey_id = ${big.survey.id}
      union all select r.started_at::date, r.channel, '', 'completed' from survey_responses r where r.survey_id = ${big.survey.id} and r.complete
      union all select r.started_at::date, r.channel, e.key, '#' from survey_responses r, jsonb_each(r.answers) e where r.survey_id = ${big.survey.id}
      union all select r.started_at::date, r.channel, e.key, e.value::text from survey_responses r, jsonb_each(r.answers) e
        where r.survey_id = ${big.survey.id} and jsonb_typeof(e.value) = 'number'
      union all select r.started_at::date, r.channel, e.key, '=' || (e.value ->> 'choice') from survey_responses r, jsonb_each(r.answers) e
        where r.survey_id = ${big.survey.id} and jsonb_typeof(e.value) = 'object'
    ) x group by question_id, value_key, day, channel`);
  await db.execute(sql`analyze survey_responses`);
  await db.execute(sql`analyze survey_result_deltas`);
  const [{ deltas }] = await db.execute<{ deltas: number }>(sql`select count(*)::int as deltas from survey_result_deltas where survey_id = ${big.survey.id}`);
  console.log(
    `seeded ${RESPONSES.toLocaleString('en')} responses (${deltas} delta rows) in ${((Date.now() - t2) / 1000).toFixed(1)} s; load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );

  const scope = { accountId: a.account.id, surveyId: big.survey.id };
  if (process.env.BENCH_EXPLAIN === '1') {
    const plan = await db.execute<{ 'QUERY PLAN': string }>(sql`explain analyze select id, answers -> ${id('text')} from survey_responses
      where account_id = ${a.account.id} and survey_id = ${big.survey.id} and draft = false and (answers -> ${id('text')}) is not null
      order by started_at desc, id desc limit 11 offset 490`);
    console.log(plan.map((p) => p['QUERY PLAN']).join('\n'));
  }
  const textQ = questionOf(big.version!, 'text');
  const filterSets = [
    {},
    { from: '2026-06-01', to: '2026-08-31' },
    { channel: 'in-app' as const },
    { from: '2026-01-01', to: '2026-12-31', channel: 'web' as const },
  ];
  const page = async (i: number) => {
    const filters = filterSets[i % filterSets.length];
    // What the results loader does: the aggregates, then a page of text answers.
    await getSurveyResults({ ...scope, filters });
    await listTextAnswers({ ...scope, question: textQ, filters, page: 1 });
  };
  const r = await measure(`results page at ${RESPONSES.toLocaleString('en')} responses (4 filter sets)`, 40, page);
  rows.push({ label: `results page p95, ${RESPONSES.toLocaleString('en')} responses`, value: r.p95, ceiling: 200, unit: 'ms' });
  const deep = await measure('text answers, page 50', 20, () => listTextAnswers({ ...scope, question: textQ, filters: {}, page: 50 }));
  rows.push({ label: 'text answers page 50 p95', value: deep.p95, ceiling: 200, unit: 'ms' });

  const t3 = Date.now();
  const reader = (await exportResponsesCsv({ ...scope, filters: {} })).getReader();
  let bytes = 0;
  let rss = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.length;
    rss = Math.max(rss, process.memoryUsage().rss);
  }
  console.log(
    `CSV export of ${RESPONSES.toLocaleString('en')} responses: ${(bytes / 1e6).toFixed(1)} MB in ${((Date.now() - t3) / 1000).toFixed(1)} s, peak RSS ${(
      rss / 1e6
    ).toFixed(0)} MB`,
  );

  // ------------------------------------------------------------------ 3. weights
  if (fs.existsSync(path.resolve('build/index.js'))) {
    const { startTestApp } = await import('../tests/helpers/http');
    const app = await startTestApp();
    for (const themeType of ['traditional', 'conversational']) {
      const web = await publishedSurvey({ ...who, subType: 'custom', types: ALL_TYPES, themeType });
      const res = await app.request(`/survey/web/${a.account.id}/${web.survey.uniqueId}`, { domain: 'benchsurveys' });
      const assets = [...res.text.matchAll(/<(?:link[^>]+rel="stylesheet"[^>]+href|script[^>]+src|img[^>]+src)="([^"]+)"/g)].map((m) => m[1]);
      let total = zlib.gzipSync(res.text).length;
      for (const asset of assets) total += zlib.gzipSync((await app.request(asset, { domain: 'benchsurveys' })).text).length;
      console.log(`web survey page (${themeType}, 13 question types): ${(total / 1024).toFixed(1)} KB gzipped with ${assets.length} stylesheets, no script`);
      rows.push({ label: `web survey page, ${themeType}, gzipped`, value: total / 1024, ceiling: 25, unit: 'KB' });
    }
    await app.close();
  } else console.log('build/ missing: run npm run build for the page weight');

  const { buildWidgetBundle, SURVEY_MODULE_ENTRY, WIDGET_ENTRY } = await import('../app/models/channels/widget-bundle.server');
  const gz = (code: string) => zlib.gzipSync(code, { level: 9 }).length;
  const mod = gz((await buildWidgetBundle(SURVEY_MODULE_ENTRY)).code);
  rows.push({ label: 'in-app survey module, gzipped', value: mod / 1024, ceiling: 12, unit: 'KB' });
  const widget = gz((await buildWidgetBundle(WIDGET_ENTRY)).code);
  try {
    const before = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'widget-before-')), 'widget.ts');
    fs.writeFileSync(before, execFileSync('git', ['show', `${process.env.WIDGET_BASE_REF ?? 'surveys'}:app/widget/widget.ts`]));
    const was = gz((await buildWidgetBundle(before)).code);
    console.log(`widget.js: ${widget} B gzipped, was ${was} B: +${widget - was} B`);
    rows.push({ label: 'widget base script growth, gzipped', value: (widget - was) / 1024, ceiling: 1, unit: 'KB' });
  } catch {
    console.log(`widget.js: ${widget} B gzipped (no git base to compare with)`);
  }

  console.log(
    `\nload ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  let failed = 0;
  for (const row of rows) {
    const ok = row.value <= row.ceiling;
    if (!ok) failed++;
    console.log(
      `${ok ? 'ok  ' : 'OVER'} ${row.label.padEnd(58)} ${row.value.toFixed(row.unit === 'KB' ? 2 : 1).padStart(8)} ${row.unit}  ceiling ${row.ceiling} ${
        row.unit
      }`,
    );
  }
  await closeDb();
  await server.stop();
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
