import { and, asc, desc, eq, sql, type SQL } from 'drizzle-orm';
import { getDb, schema } from '../../../db/client';
import { csvStream } from '../../utils/csv-stream.server';
import { answerText, isAnswerable, scaleLabel, scaleOf } from './answers';
import { QUESTION_TYPE_LABELS } from './constants';
import { foldResultDeltas } from './responses.server';
import { RESPONSE_CHANNELS, type AnswerValue, type ResponseChannel } from './response-types';
import type { SurveyQuestion } from './types';

const d = schema.surveyResultDeltas;
const r = schema.surveyResponses;
const v = schema.surveyVersions;

/** Past this many unfolded delta rows for a survey, the results page folds them before reading (ADR 060). */
const FOLD_AFTER = 5000;
export const TEXT_PAGE_SIZE = 10;
/** The longest span the over-time chart draws one bar per day for; longer spans draw weeks. */
const MAX_DAILY_BARS = 62;

export type ResultFilters = { from?: string; to?: string; channel?: ResponseChannel };

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** Filters from a query string; unreadable values are dropped (the page shows what it applied). */
export function readResultFilters(url: URL): ResultFilters {
  const from = url.searchParams.get('from') ?? '';
  const to = url.searchParams.get('to') ?? '';
  const channel = url.searchParams.get('channel') ?? '';
  return {
    from: DAY.test(from) ? from : undefined,
    to: DAY.test(to) ? to : undefined,
    channel: (RESPONSE_CHANNELS as readonly string[]).includes(channel) ? (channel as ResponseChannel) : undefined,
  };
}

function deltaWhere(opts: { accountId: number; surveyId: number; filters: ResultFilters }) {
  const f = opts.filters;
  const where: SQL[] = [eq(d.accountId, opts.accountId), eq(d.surveyId, opts.surveyId)];
  if (f.from) where.push(sql`${d.day} >= ${f.from}`);
  if (f.to) where.push(sql`${d.day} <= ${f.to}`);
  if (f.channel) where.push(eq(d.channel, f.channel));
  return and(...where)!;
}

export type Bar = { key: string; label: string; count: number; pct: number };
export type NpsScore = { kind: 'nps'; score: number; promoters: number; passives: number; detractors: number; answered: number };
export type CsatScore = { kind: 'csat'; satisfiedPct: number; average: number; points: number; answered: number };
export type CesScore = { kind: 'ces'; average: number; agreePct: number; points: number; answered: number };
export type QuestionResult = {
  id: string;
  type: SurveyQuestion['type'];
  typeLabel: string;
  question: string;
  answered: number;
  bars: Bar[];
  average: number | null;
  score: NpsScore | CsatScore | CesScore | null;
  /** Text, date and form answers are listed, not charted. */
  listed: boolean;
  /** Asked only in an earlier published version. */
  earlier: boolean;
};

const pct = (n: number, of: number) => (of > 0 ? Math.round((n / of) * 1000) / 10 : 0);
const round1 = (n: number) => Math.round(n * 10) / 10;

/**
 * NPS over the answered responses only (ADR 060): promoters score 9–10, detractors 0–6; the score is the
 * percentage of promoters minus that of detractors, -100 to 100.
 */
export function npsOf(counts: Map<number, number>): NpsScore {
  let promoters = 0;
  let passives = 0;
  let detractors = 0;
  for (const [value, n] of counts) {
    if (value >= 9) promoters += n;
    else if (value >= 7) passives += n;
    else detractors += n;
  }
  const answered = promoters + passives + detractors;
  return { kind: 'nps', score: answered ? Math.round(((promoters - detractors) / answered) * 100) : 0, promoters, passives, detractors, answered };
}

const averageOf = (counts: Map<number, number>) => {
  let sum = 0;
  let n = 0;
  for (const [value, c] of counts) {
    sum += value * c;
    n += c;
  }
  return n ? round1(sum / n) : 0;
};

/** CSAT: the share of satisfied answers (4–5 on five points, the top face on three) and the average. */
export function csatOf(counts: Map<number, number>, points: number): CsatScore {
  const answered = [...counts.values()].reduce((a, b) => a + b, 0);
  const satisfied = [...counts].filter(([value]) => (points >= 5 ? value >= points - 1 : value === points)).reduce((a, [, n]) => a + n, 0);
  return { kind: 'csat', satisfiedPct: pct(satisfied, answered), average: averageOf(counts), points, answered };
}

/** CES on 0 to `points`: the average, and the share that agree (above the scale's middle: 4–7 of 0–7, 3–5 of 0–5, 2–3 of 0–3). */
export function cesOf(counts: Map<number, number>, points: number): CesScore {
  const answered = [...counts.values()].reduce((a, b) => a + b, 0);
  const middle = points / 2;
  const agree = [...counts].filter(([value]) => value > middle).reduce((a, [, n]) => a + n, 0);
  return { kind: 'ces', average: averageOf(counts), agreePct: pct(agree, answered), points, answered };
}

/** The questions results are shown for: the newest version's, then those only earlier versions asked. */
async function resultQuestions(opts: { accountId: number; surveyId: number }) {
  const versions = await getDb()
    .select({ questions: v.questions })
    .from(v)
    .where(and(eq(v.accountId, opts.accountId), eq(v.surveyId, opts.surveyId)))
    .orderBy(desc(v.version))
    .limit(20);
  const seen = new Set<string>();
  const out: (SurveyQuestion & { earlier: boolean })[] = [];
  versions.forEach((ver, i) => {
    for (const q of [...ver.questions].sort((a, b) => a.order - b.order)) {
      if (seen.has(q.id) || !isAnswerable(q.type)) continue;
      seen.add(q.id);
      out.push({ ...q, earlier: i > 0 });
    }
  });
  return out;
}

/**
 * The results of one survey under the filters, from its count deltas (ADR 060): a read of a few thousand rows at
 * most whatever the number of responses. The caller has checked the survey is the viewer's.
 */
export async function getSurveyResults(opts: { accountId: number; surveyId: number; filters: ResultFilters }) {
  const where = deltaWhere(opts);
  const [[{ rows }], questions] = await Promise.all([
    getDb()
      .select({ rows: sql<number>`count(*)::int` })
      .from(d)
      .where(and(eq(d.accountId, opts.accountId), eq(d.surveyId, opts.surveyId), eq(d.folded, false))),
    resultQuestions(opts),
  ]);
  if (rows > FOLD_AFTER) await foldResultDeltas(opts);
  const [sums, days] = await Promise.all([
    getDb()
      .select({ questionId: d.questionId, valueKey: d.valueKey, n: sql<number>`sum(${d.n})::int` })
      .from(d)
      .where(and(where, sql`${d.questionId} <> ''`))
      .groupBy(d.questionId, d.valueKey),
    getDb()
      .select({ day: sql<string>`${d.day}::text`, valueKey: d.valueKey, n: sql<number>`sum(${d.n})::int` })
      .from(d)
      .where(and(where, eq(d.questionId, '')))
      .groupBy(d.day, d.valueKey)
      .orderBy(asc(d.day)),
  ]);

  const byQuestion = new Map<string, Map<string, number>>();
  for (const s of sums) {
    if (!byQuestion.has(s.questionId)) byQuestion.set(s.questionId, new Map());
    byQuestion.get(s.questionId)!.set(s.valueKey, s.n);
  }
  let responses = 0;
  let completed = 0;
  for (const row of days) {
    if (row.valueKey === 'responses') responses += row.n;
    if (row.valueKey === 'completed') completed += row.n;
  }

  const results: QuestionResult[] = questions.map((q) => {
    const counts = byQuestion.get(q.id) ?? new Map<string, number>();
    const answered = counts.get('#') ?? 0;
    const scale = scaleOf(q);
    let bars: Bar[] = [];
    let score: QuestionResult['score'] = null;
    let average: number | null = null;
    if (scale) {
      const numeric = new Map<number, number>();
      for (let value = scale.min; value <= scale.max; value++) numeric.set(value, counts.get(String(value)) ?? 0);
      bars = [...numeric].map(([value, n]) => ({ key: String(value), label: scaleLabel(q, value), count: n, pct: pct(n, answered) }));
      average = answered ? averageOf(numeric) : null;
      if (q.type === 'nps') score = npsOf(numeric);
      else if (q.type === 'csat') score = csatOf(numeric, scale.max);
      else if (q.type === 'ces') score = cesOf(numeric, scale.max);
    } else if (q.type === 'radio' || q.type === 'dropdown' || q.type === 'checkbox') {
      const options = (q.settings.options ?? []).map((o) => o.choice);
      // A choice an earlier version offered still shows, after the current ones.
      for (const key of counts.keys()) if (key.startsWith('=') && !options.includes(key.slice(1))) options.push(key.slice(1));
      bars = options.map((choice) => {
        const n = counts.get(`=${choice}`) ?? 0;
        return { key: choice, label: choice, count: n, pct: pct(n, answered) };
      });
    }
    return {
      id: q.id,
      type: q.type,
      typeLabel: QUESTION_TYPE_LABELS[q.type],
      question: q.question,
      answered,
      bars,
      average,
      score,
      listed: q.type === 'text' || q.type === 'date' || q.type === 'form',
      earlier: q.earlier,
    };
  });

  return {
    totals: { responses, completed, partial: responses - completed, completionRate: pct(completed, responses) },
    overTime: overTime(days, opts.filters),
    questions: results,
    headline: {
      nps: results.find((q) => q.score?.kind === 'nps')?.score as NpsScore | undefined,
      csat: results.find((q) => q.score?.kind === 'csat')?.score as CsatScore | undefined,
      ces: results.find((q) => q.score?.kind === 'ces')?.score as CesScore | undefined,
    },
  };
}
export type SurveyResults = Awaited<ReturnType<typeof getSurveyResults>>;

const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/** Responses started per day (or per week over long spans), gaps filled with zero, for the bar chart. */
function overTime(rows: { day: string; valueKey: string; n: number }[], f: ResultFilters) {
  const firstSeen = rows[0]?.day;
  const lastSeen = rows[rows.length - 1]?.day;
  const to = f.to ?? lastSeen ?? new Date().toISOString().slice(0, 10);
  const from = f.from ?? firstSeen ?? addDays(to, -13);
  const span = Math.max(1, Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000) + 1);
  const step = span > MAX_DAILY_BARS ? 7 : 1;
  const buckets: { day: string; responses: number; completed: number }[] = [];
  for (let day = from; day <= to && buckets.length < 400; day = addDays(day, step)) buckets.push({ day, responses: 0, completed: 0 });
  for (const row of rows) {
    const i = Math.floor((Date.parse(row.day) - Date.parse(from)) / 86_400_000 / step);
    const b = buckets[i];
    if (!b) continue;
    if (row.valueKey === 'responses') b.responses += row.n;
    if (row.valueKey === 'completed') b.completed += row.n;
  }
  return { step, buckets };
}

function responseWhere(opts: { accountId: number; surveyId: number; filters: ResultFilters }) {
  const f = opts.filters;
  const where: SQL[] = [eq(r.accountId, opts.accountId), eq(r.surveyId, opts.surveyId), eq(r.draft, false)];
  if (f.from) where.push(sql`${r.startedAt} >= ${f.from}::date`);
  if (f.to) where.push(sql`${r.startedAt} < ${f.to}::date + 1`);
  if (f.channel) where.push(eq(r.channel, f.channel));
  return where;
}

/** A page of the answers to a text, date or form question, newest first. */
export async function listTextAnswers(opts: { accountId: number; surveyId: number; question: SurveyQuestion; filters: ResultFilters; page?: number }) {
  const page = Math.max(1, Math.min(opts.page ?? 1, 10_000));
  const rows = await getDb()
    .select({ id: r.id, value: sql<AnswerValue>`${r.answers} -> ${opts.question.id}`, startedAt: r.startedAt, channel: r.channel, complete: r.complete })
    .from(r)
    // Not `answers ? id`: the planner guesses that matches almost nothing and sorts the whole survey; IS NOT NULL it
    // reads as almost everything, and walks the (survey, started) index newest first until the page is full.
    .where(and(...responseWhere(opts), sql`(${r.answers} -> ${opts.question.id}) is not null`))
    .orderBy(desc(r.startedAt), desc(r.id))
    .limit(TEXT_PAGE_SIZE + 1)
    .offset((page - 1) * TEXT_PAGE_SIZE);
  return {
    page,
    hasMore: rows.length > TEXT_PAGE_SIZE,
    rows: rows
      .slice(0, TEXT_PAGE_SIZE)
      .map((row) => ({ id: row.id, text: answerText(opts.question, row.value), startedAt: row.startedAt, channel: row.channel, complete: row.complete })),
  };
}

/** Neutralises a cell a spreadsheet would run as a formula. */
const cell = (s: string) => (/^[=+\-@\t\r]/.test(s) ? `'${s}` : s);

type ExportRow = {
  id: string;
  started_at: Date | string;
  completed_at: Date | string | null;
  complete: boolean;
  channel: string;
  email: string | null;
  page_url: string | null;
  version: number;
  answers: Record<string, AnswerValue>;
};

/**
 * Every response of the survey (not drafts) as a CSV stream, oldest first: a server-side cursor a thousand rows at a
 * time, each page written when the reader asks for more, so memory stays flat at a million responses. One column
 * per question of any published version.
 */
export async function exportResponsesCsv(opts: { accountId: number; surveyId: number; filters: ResultFilters }): Promise<ReadableStream<Uint8Array>> {
  const questions = await resultQuestions(opts);
  const c = schema.contacts;
  const query = sql`
    select ${r.id}::text as id, ${r.startedAt} as started_at, ${r.completedAt} as completed_at, ${r.complete} as complete, ${r.channel} as channel,
           ${c.email} as email, ${r.pageUrl} as page_url, ${v.version} as version, ${r.answers} as answers
    from ${r}
    join ${v} on ${v.id} = ${r.surveyVersionId} and ${v.accountId} = ${opts.accountId}
    left join ${c} on ${c.id} = ${r.contactId} and ${c.accountId} = ${opts.accountId}
    where ${and(...responseWhere(opts))}
    order by ${r.startedAt}, ${r.id}`;
  const header = ['Response ID', 'Started', 'Completed', 'Status', 'Channel', 'Contact email', 'Page URL', 'Version', ...questions.map((q) => q.question)];
  const toRecord = (row: ExportRow) => [
    row.id,
    new Date(row.started_at).toISOString(),
    row.completed_at ? new Date(row.completed_at).toISOString() : '',
    row.complete ? 'Complete' : 'Partial',
    row.channel,
    row.email ?? '',
    cell(row.page_url ?? ''),
    row.version,
    ...questions.map((q) => cell(answerText(q, row.answers?.[q.id]))),
  ];
  return csvStream<ExportRow>({ query, header: header.map(cell), toRecord });
}
