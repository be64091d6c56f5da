import { sql } from 'drizzle-orm';
import { getDb } from '../../../db/client';
import { LIVE_WINDOW_SECONDS } from '../crm/page-views.server';
import type { Range } from './range.server';
import { breakdown, breakdownChart, dailyChart, dailyTable, dimensionNames, headlines, type Col, type Report, type Table } from './reports.server';

/**
 * The customers, reviews, surveys, forms and help-centre pages (ADR 102, definitions in docs/analytics.md): the same
 * shape as the conversation pages (ADR 091), read from the counters the projection keeps for their events.
 */
type Opts = { accountId: number; range: Range; search: URLSearchParams };

const count = (v: number) => String(Math.round(v));
const pct = (v: number) => `${Math.round(v)}%`;
const dec = (v: number) => (Math.round(v * 10) / 10).toString();

export const AREA_METRICS = {
  contactsNew: { label: 'New contacts', format: 'count', metric: 'contacts_new', agg: 'n' },
  contactsReturning: { label: 'Conversations from returning contacts', format: 'count', metric: 'contacts_returning', agg: 'n' },
  visits: { label: 'Visits', format: 'count', metric: 'visits', agg: 'n' },
  pageViews: { label: 'Page views', format: 'count', metric: 'page_views', agg: 'n' },
  pagesPerVisit: { label: 'Pages per visit', format: 'rating', metric: 'page_views', agg: 'per', of: 'visits' },
  booked: { label: 'Meetings booked', format: 'count', metric: 'meetings_booked', agg: 'n' },
  cancelled: { label: 'Meetings cancelled', format: 'count', metric: 'meetings_cancelled', agg: 'n' },
  cancelRate: { label: 'Cancelled per 100 booked', format: 'percent', metric: 'meetings_cancelled', agg: 'ratio', of: 'meetings_booked' },
  reviews: { label: 'Reviews', format: 'count', metric: 'reviews', agg: 'n' },
  reviewRating: { label: 'Average rating', format: 'rating', metric: 'reviews_rated', agg: 'avg' },
  replied: { label: 'Replied', format: 'count', metric: 'reviews_replied', agg: 'n' },
  replyRate: { label: 'Reply rate', format: 'percent', metric: 'reviews_replied', agg: 'ratio', of: 'reviews' },
  responses: { label: 'Responses', format: 'count', metric: 'survey_responses', agg: 'n' },
  surveyRating: { label: 'Average rating', format: 'rating', metric: 'survey_rated', agg: 'avg' },
  nps: { label: 'NPS', format: 'rating', metric: 'nps_promoters', minus: 'nps_detractors', agg: 'net', of: 'nps_rated' },
  surveyCsat: { label: 'CSAT', format: 'percent', metric: 'survey_satisfied', agg: 'ratio', of: 'csat_rated' },
  ces: { label: 'Average CES', format: 'rating', metric: 'ces_rated', agg: 'avg' },
  formViews: { label: 'Views', format: 'count', metric: 'form_views', agg: 'n' },
  submissions: { label: 'Submissions', format: 'count', metric: 'form_submissions', agg: 'n' },
  conversion: { label: 'Conversion rate', format: 'percent', metric: 'form_submissions', agg: 'ratio', of: 'form_views' },
  articleViews: { label: 'Article views', format: 'count', metric: 'article_views', agg: 'n' },
  helpful: { label: 'Helpful votes', format: 'count', metric: 'article_helpful', agg: 'n' },
  unhelpful: { label: 'Not helpful votes', format: 'count', metric: 'article_unhelpful', agg: 'n' },
  helpfulShare: { label: 'Helpful share', format: 'percent', metric: 'article_helpful', agg: 'ratio', of: 'article_votes' },
  searches: { label: 'Searches', format: 'count', metric: 'searches', agg: 'n' },
  noResult: { label: 'Searches without a result', format: 'count', metric: 'searches_no_result', agg: 'n' },
  noResultShare: { label: 'Share without a result', format: 'percent', metric: 'searches_no_result', agg: 'ratio', of: 'searches' },
  clicked: { label: 'Searches with a result opened', format: 'count', metric: 'searches_clicked', agg: 'n' },
  converted: { label: 'Searches that ended in a conversation', format: 'count', metric: 'searches_converted', agg: 'n' },
  convertedShare: { label: 'Share ended in a conversation', format: 'percent', metric: 'searches_converted', agg: 'ratio', of: 'searches' },
} satisfies Record<string, Col>;
const A = AREA_METRICS;

/** The daily table of each page: the table under its first chart, and its streamed CSV. */
export const AREA_DAILY_COLUMNS: Record<string, Col[]> = {
  contacts: [A.contactsNew, A.contactsReturning],
  visitors: [A.visits, A.pageViews],
  meetings: [A.booked, A.cancelled],
  reviews: [A.reviews, A.reviewRating, A.replied],
  surveys: [A.responses, A.nps, A.surveyCsat, A.ces],
  forms: [A.formViews, A.submissions, A.conversion],
  articles: [A.articleViews, A.helpful, A.unhelpful],
  searches: [A.searches, A.noResult, A.clicked, A.converted],
};

const by = async (o: Opts, dim: string, cols: Col[], caption: string, dimLabel: string, orderBy?: number) =>
  breakdown({ ...o, dim, cols, caption, dimLabel, orderBy, names: await dimensionNames({ accountId: o.accountId, dim }) });

async function daily(o: Opts, slug: string, title: string, columns: number[], format: (v: number) => string) {
  const table = await dailyTable({ ...o, cols: AREA_DAILY_COLUMNS[slug], caption: 'By day' });
  return dailyChart({ title, table, columns, format });
}

async function contacts(o: Opts): Promise<Report> {
  const [chart, bySource, byCountry, h] = await Promise.all([
    daily(o, 'contacts', 'New and returning', [1, 2], count),
    by(o, 'source', [A.contactsNew], 'New contacts by source', 'Source'),
    by(o, 'country', [A.contactsNew], 'New contacts by country', 'Country'),
    headlines({ ...o, cols: [A.contactsNew, A.contactsReturning] }),
  ]);
  return {
    headlines: h,
    charts: [chart, breakdownChart({ title: 'New contacts by source', table: bySource, column: 1, format: count })],
    tables: [byCountry],
    notes: ['A returning contact’s conversation is a new conversation of a contact who had one before.'],
  };
}

async function visitors(o: Opts): Promise<Report> {
  const [chart, pages, referrers, h, online] = await Promise.all([
    daily(o, 'visitors', 'Visits and page views', [1, 2], count),
    by(o, 'page', [A.pageViews], 'Top pages', 'Page'),
    by(o, 'referrer', [A.visits], 'Referrers', 'Referrer'),
    headlines({ ...o, cols: [A.visits, A.pageViews, A.pagesPerVisit] }),
    getDb().execute<{ url: string; country: string | null; last_seen: string }>(sql`
      select distinct on (visitor_id) url, country, to_char(last_seen_at at time zone ${o.range.tz}, 'HH24:MI') as last_seen
      from page_views
      where account_id = ${o.accountId} and last_seen_at > now() - make_interval(secs => ${LIVE_WINDOW_SECONDS})
      order by visitor_id, last_seen_at desc, id desc limit 200`),
  ]);
  const onlineTable: Table = {
    caption: 'Online now',
    columns: [
      { label: 'Page', format: 'text' },
      { label: 'Country', format: 'text' },
      { label: 'Last seen', format: 'text' },
    ],
    rows: online.map((r) => [r.url, r.country ?? '', r.last_seen]),
  };
  return {
    headlines: [...h, { label: 'Online now', format: 'count', value: online.length, previous: null }],
    charts: [chart, breakdownChart({ title: 'Top pages', table: pages, column: 1, format: count })],
    tables: [referrers, onlineTable],
    notes: [
      `A visit starts with a visitor’s page view after 30 minutes without one. Online now: visitors seen in the last ${LIVE_WINDOW_SECONDS / 60} minutes.`,
    ],
  };
}

async function meetings(o: Opts): Promise<Report> {
  const cols = [A.booked, A.cancelled];
  const [chart, byType, byHost, h] = await Promise.all([
    daily(o, 'meetings', 'Booked and cancelled', [1, 2], count),
    by(o, 'meeting', cols, 'By meeting type', 'Meeting type'),
    by(o, 'host', cols, 'By host', 'Host'),
    headlines({ ...o, cols: [A.booked, A.cancelled, A.cancelRate] }),
  ]);
  return {
    headlines: h,
    charts: [chart, breakdownChart({ title: 'Booked by meeting type', table: byType, column: 1, format: count })],
    tables: [byHost],
    notes: ['Counted when booked or cancelled, not on the meeting’s day.'],
  };
}

async function reviews(o: Opts): Promise<Report> {
  const [chart, bySource, h] = await Promise.all([
    daily(o, 'reviews', 'Reviews and replies', [1, 3], count),
    by(o, 'source', [A.reviews, A.reviewRating, A.replied, A.replyRate], 'By source', 'Source'),
    headlines({ ...o, cols: [A.reviews, A.reviewRating, A.replied, A.replyRate] }),
  ]);
  return {
    headlines: h,
    charts: [chart, breakdownChart({ title: 'Reviews by source', table: bySource, column: 1, format: count })],
    tables: [],
    notes: ['Reply rate: reviews first replied to in the range per 100 reviews received in it.'],
  };
}

async function surveys(o: Opts): Promise<Report> {
  const cols = [A.responses, A.surveyRating, A.nps, A.surveyCsat, A.ces];
  const [chart, bySurvey, byKind, h] = await Promise.all([
    daily(o, 'surveys', 'NPS, CSAT and CES by day', [2, 3], dec),
    by(o, 'survey', cols, 'By survey', 'Survey'),
    by(o, 'kind', [A.responses, A.surveyRating], 'By kind', 'Kind'),
    headlines({ ...o, cols: [A.responses, A.nps, A.surveyCsat, A.ces] }),
  ]);
  return {
    headlines: h,
    charts: [chart, breakdownChart({ title: 'Responses by survey', table: bySurvey, column: 1, format: count })],
    tables: [byKind],
    notes: [
      'NPS = promoters (9–10) minus detractors (0–6) per 100 NPS ratings; CSAT = ratings of 4 or 5 per 100 CSAT ratings; CES = the average effort rating.',
    ],
  };
}

async function forms(o: Opts): Promise<Report> {
  const cols = [A.formViews, A.submissions, A.conversion];
  const [chart, byForm, h] = await Promise.all([
    daily(o, 'forms', 'Views and submissions', [1, 2], count),
    by(o, 'form', cols, 'By form', 'Form'),
    headlines({ ...o, cols }),
  ]);
  return {
    headlines: h,
    charts: [
      chart,
      breakdownChart({ title: 'Submissions by form', table: byForm, column: 2, format: count }),
      { ...breakdownChart({ title: 'Conversion rate by form', table: byForm, column: 3, format: pct }) },
    ],
    tables: [],
    notes: ['A view is the public form shown to a visitor (not after sending); conversion = submissions per 100 views.'],
  };
}

async function articles(o: Opts): Promise<Report> {
  const cols = [A.articleViews, A.helpful, A.unhelpful, A.helpfulShare];
  const [chart, top, failingAll, h] = await Promise.all([
    daily(o, 'articles', 'Views and votes', [1, 2, 3], count),
    by(o, 'article', cols, 'Top articles', 'Article'),
    by(o, 'article', [A.unhelpful, A.helpful, A.articleViews, A.helpfulShare], 'Failing articles (most “not helpful” votes)', 'Article'),
    headlines({ ...o, cols }),
  ]);
  const failing = { ...failingAll, rows: failingAll.rows.filter((r) => Number(r[1]) > 0) };
  return {
    headlines: h,
    charts: [chart, breakdownChart({ title: 'Most read articles', table: top, column: 1, format: count })],
    tables: [failing],
    notes: ['A changed vote moves from one side to the other; helpful share = helpful votes per 100 votes cast in the range.'],
  };
}

async function searches(o: Opts): Promise<Report> {
  const cols = [A.searches, A.noResult, A.clicked, A.converted];
  const [chart, top, none, h] = await Promise.all([
    daily(o, 'searches', 'Searches by day', [1, 2, 3, 4], count),
    by(o, 'query', cols, 'Top queries', 'Query').then((t) => ({ ...t, rows: t.rows.filter((r) => Number(r[1]) > 0) })),
    by(o, 'query', [A.noResult, A.searches], 'Queries without a result', 'Query'),
    headlines({ ...o, cols: [A.searches, A.noResult, A.noResultShare, A.clicked, A.converted, A.convertedShare] }),
  ]);
  return {
    headlines: h,
    charts: [chart, breakdownChart({ title: 'Top queries', table: top, column: 1, format: count })],
    tables: [{ ...none, rows: none.rows.filter((r) => Number(r[1]) > 0) }],
    notes: [
      'A search typed letter by letter in the messenger counts once, under its last query. Queries are compared in lower case.',
      'A search ended in a conversation when the same messenger visitor started a conversation within 30 minutes after it (help-centre pages outside the messenger do not know their visitor).',
    ],
  };
}

export const AREA_REPORTS: Record<string, (o: Opts) => Promise<Report>> = { contacts, visitors, meetings, reviews, surveys, forms, articles, searches };
