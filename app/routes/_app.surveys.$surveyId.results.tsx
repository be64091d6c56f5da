import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Pager, readPage } from '~/components/ui/pager';
import { CHANNEL_LABELS, STATUS_LABELS, SUB_TYPE_LABELS } from '~/models/surveys/constants';
import { RESPONSE_CHANNELS } from '~/models/surveys/response-types';
import { getSurveyResults, listTextAnswers, readResultFilters, TEXT_PAGE_SIZE, type QuestionResult, type SurveyResults } from '~/models/surveys/results.server';
import { getSurvey, publicSurveyPath } from '~/models/surveys/surveys.server';
import { emailDeliveryStats, listRecipients } from '~/models/surveys/email-surveys.server';
import { DELIVERY_PAGE_SIZE, EmailDelivery } from '~/components/surveys/email-delivery';
import { formatDate, formatDateTime, pageTitle, type DatePrefs } from '~/utils/format';
import { parseRowId } from '~/utils/route-id';
import { publicUser, requireFeature, requirePermission } from '~/utils/session.server';
import resultStyles from '../styles/survey-results.css?url';

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: resultStyles }];

/**
 * A survey's results (ADR 060): responses over time, completion rate, NPS / CSAT / CES, each question's
 * distribution and the text answers, under date and channel filters. Drawn on the server (CSS bars and SVG);
 * manage_surveys and the plan area, and the viewer's folders, decide who sees them.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'customerSatisfactionSurveys/enabled', await requirePermission(request, 'manage_surveys'));
  const id = parseRowId(params.surveyId);
  const survey = id ? await getSurvey({ accountId: ctx.account.id, id, viewer: { userId: ctx.user.id, isAdmin: ctx.isOrgAdmin } }) : undefined;
  if (!survey) throw new Response('Not Found', { status: 404 });
  const url = new URL(request.url);
  const filters = readResultFilters(url);
  const results = await getSurveyResults({ accountId: ctx.account.id, surveyId: survey.id, filters });
  const paged = url.searchParams.get('q');
  const listed = results.questions.filter((q) => q.listed);
  const texts = await Promise.all(
    listed.map(async (q) => {
      const question = { id: q.id, type: q.type, question: q.question, settings: {}, isRequired: false, order: 0 } as const;
      const full = [...survey.questions].find((x) => x.id === q.id) ?? question;
      return {
        id: q.id,
        ...(await listTextAnswers({ accountId: ctx.account.id, surveyId: survey.id, question: full, filters, page: paged === q.id ? readPage(url) : 1 })),
      };
    }),
  );
  const delivery =
    survey.channel === 'email'
      ? {
          stats: await emailDeliveryStats({ accountId: ctx.account.id, surveyId: survey.id }),
          // The delivery list pages on its own (`q=delivery&page=N`), like a text question's answers.
          page: paged === 'delivery' ? readPage(url) : 1,
          recipients: await listRecipients({
            accountId: ctx.account.id,
            surveyId: survey.id,
            limit: DELIVERY_PAGE_SIZE,
            offset: ((paged === 'delivery' ? readPage(url) : 1) - 1) * DELIVERY_PAGE_SIZE,
          }),
        }
      : null;
  return {
    delivery,
    survey: {
      id: survey.id,
      name: survey.name,
      channel: survey.channel,
      subType: survey.subType,
      status: survey.status,
      link: survey.channel === 'web' ? publicSurveyPath(survey) : null,
    },
    filters,
    results,
    texts,
    paged,
    user: publicUser(ctx),
  };
}

export const handle = { breadcrumb: 'Results' };

const fmt = (n: number) => n.toLocaleString('en');

export default function SurveyResultsPage() {
  const { survey, filters, results, texts, paged, user, delivery } = useLoaderData<typeof loader>();
  const qs = new URLSearchParams();
  if (filters.from) qs.set('from', filters.from);
  if (filters.to) qs.set('to', filters.to);
  if (filters.channel) qs.set('channel', filters.channel);
  const t = results.totals;
  const h = results.headline;
  return (
    <main id="main" className="page survey-results">
      <div className="results-bar">
        <h1>
          {survey.name} <span className="muted">— Results</span>
        </h1>
        <span className={`pill status-${survey.status}`}>{STATUS_LABELS[survey.status]}</span>
        <span className="muted">
          {CHANNEL_LABELS[survey.channel]} · {SUB_TYPE_LABELS[survey.subType]}
        </span>
        <div className="results-actions">
          <Link to={`/surveys/edit/${survey.id}/${survey.channel}/design`} className="btn">
            Edit survey
          </Link>
          {survey.link ? (
            <a href={survey.link} className="btn" target="_blank" rel="noreferrer">
              Open survey
            </a>
          ) : null}
          <a href={`/surveys/${survey.id}/results/export${qs.size ? `?${qs}` : ''}`} className="btn btn-primary" download>
            Download CSV
          </a>
        </div>
      </div>

      <Form method="get" className="results-filters" aria-label="Filter results">
        <div className="field">
          <label htmlFor="from">From</label>
          <input id="from" type="date" name="from" defaultValue={filters.from ?? ''} />
        </div>
        <div className="field">
          <label htmlFor="to">To</label>
          <input id="to" type="date" name="to" defaultValue={filters.to ?? ''} />
        </div>
        <div className="field">
          <label htmlFor="channel">Channel</label>
          <select id="channel" name="channel" defaultValue={filters.channel ?? ''}>
            <option value="">All channels</option>
            {RESPONSE_CHANNELS.map((c) => (
              <option key={c} value={c}>
                {CHANNEL_LABELS[c]}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="btn">
          Apply
        </button>
        {qs.size ? (
          <Link to={`/surveys/${survey.id}/results`} className="btn btn-link">
            Clear filters
          </Link>
        ) : null}
      </Form>

      {delivery ? <EmailDelivery delivery={delivery} user={user} /> : null}

      <ul className="results-cards" aria-label="Summary">
        <li className="card" data-testid="total-responses">
          <span className="muted">Responses</span>
          <strong>{fmt(t.responses)}</strong>
          <small className="muted">{fmt(t.partial)} partial</small>
        </li>
        <li className="card" data-testid="completion-rate">
          <span className="muted">Completion rate</span>
          <strong>{`${t.completionRate}%`}</strong>
          <small className="muted">{fmt(t.completed)} completed</small>
        </li>
        {h.nps ? (
          <li className="card" data-testid="nps-score">
            <span className="muted">NPS</span>
            <strong>{h.nps.score}</strong>
            <small className="muted">over {fmt(h.nps.answered)} answers</small>
          </li>
        ) : null}
        {h.csat ? (
          <li className="card" data-testid="csat-score">
            <span className="muted">CSAT</span>
            <strong>{`${h.csat.satisfiedPct}%`}</strong>
            <small className="muted">
              average {h.csat.average} of {h.csat.points}
            </small>
          </li>
        ) : null}
        {h.ces ? (
          <li className="card" data-testid="ces-score">
            <span className="muted">CES</span>
            <strong>{h.ces.average}</strong>
            <small className="muted">
              of {h.ces.points}, {h.ces.agreePct}% agree
            </small>
          </li>
        ) : null}
      </ul>

      <OverTime data={results.overTime} user={user} />

      {results.questions.length === 0 ? <p className="muted">This survey has no published questions yet.</p> : null}
      {results.questions.map((q, i) => (
        <section key={q.id} className="card result-question" aria-labelledby={`rq-${q.id}`}>
          <h2 id={`rq-${q.id}`}>
            <span className="muted">{i + 1}.</span> {q.question}
          </h2>
          <p className="muted small">
            {q.typeLabel} · {fmt(q.answered)} {q.answered === 1 ? 'answer' : 'answers'}
            {q.average !== null ? ` · average ${q.average}` : ''}
            {q.earlier ? ' · asked in an earlier version' : ''}
          </p>
          {q.score ? <Score score={q.score} /> : null}
          {q.bars.length ? <Bars q={q} /> : null}
          {q.listed ? <TextAnswers q={q} page={texts.find((x) => x.id === q.id)!} open={paged === q.id} user={user} /> : null}
        </section>
      ))}
    </main>
  );
}

function Score({ score }: { score: NonNullable<QuestionResult['score']> }) {
  if (score.kind === 'nps') {
    const n = score.answered || 1;
    const parts = [
      ['Promoters (9–10)', score.promoters, 'nps-pro'],
      ['Passives (7–8)', score.passives, 'nps-pas'],
      ['Detractors (0–6)', score.detractors, 'nps-det'],
    ] as const;
    return (
      <div className="score">
        <p>
          NPS <strong>{score.score}</strong> <span className="muted">(% promoters minus % detractors, over answered responses)</span>
        </p>
        <div className="stack-bar" aria-hidden="true">
          {parts.map(([label, count, cls]) => (count ? <span key={label} className={cls} style={{ width: `${(count / n) * 100}%` }} /> : null))}
        </div>
        <ul className="legend">
          {parts.map(([label, count, cls]) => (
            <li key={label}>
              <i className={cls} /> {label}: {Math.round((count / n) * 1000) / 10}% ({count})
            </li>
          ))}
        </ul>
      </div>
    );
  }
  if (score.kind === 'csat')
    return (
      <p className="score">
        CSAT <strong>{score.satisfiedPct}%</strong> satisfied ({score.points === 5 ? '4–5' : `${score.points}`} of {score.points}) · average{' '}
        <strong>{score.average}</strong>
      </p>
    );
  return (
    <p className="score">
      CES average <strong>{score.average}</strong> of {score.points} · <strong>{score.agreePct}%</strong> agree
    </p>
  );
}

function Bars({ q }: { q: QuestionResult }) {
  return (
    <table className="bars">
      <caption className="visually-hidden">Answers to {q.question}</caption>
      <thead className="visually-hidden">
        <tr>
          <th scope="col">Answer</th>
          <th scope="col">Share</th>
          <th scope="col">Count</th>
        </tr>
      </thead>
      <tbody>
        {q.bars.map((b) => (
          <tr key={b.key}>
            <th scope="row">{b.label}</th>
            <td className="bar-cell">
              <span className="bar" style={{ width: `${b.pct}%` }} />
              <span className="bar-pct">{b.pct}%</span>
            </td>
            <td className="num">{fmt(b.count)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

type PageUser = DatePrefs;

function TextAnswers({
  q,
  page,
  open,
  user,
}: {
  q: QuestionResult;
  page: { rows: { id: number; text: string; startedAt: string | Date; channel: string }[]; page: number; hasMore: boolean };
  open: boolean;
  user: PageUser;
}) {
  if (page.rows.length === 0) return <p className="muted">No answers yet.</p>;
  return (
    <>
      <ol className="text-answers" data-testid={`answers-${q.id}`}>
        {page.rows.map((r) => (
          <li key={r.id}>
            <p>{r.text}</p>
            <small className="muted">
              {formatDateTime(r.startedAt, user)} · {CHANNEL_LABELS[r.channel as keyof typeof CHANNEL_LABELS] ?? r.channel}
            </small>
          </li>
        ))}
      </ol>
      {open ? (
        <Pager page={page.page} pageSize={TEXT_PAGE_SIZE} total={page.hasMore ? page.page * TEXT_PAGE_SIZE + 1 : page.page * TEXT_PAGE_SIZE} />
      ) : page.hasMore ? (
        <Link to={`?q=${q.id}&page=2#rq-${q.id}`}>More answers</Link>
      ) : null}
    </>
  );
}

function OverTime({ data, user }: { data: SurveyResults['overTime']; user: PageUser }) {
  const max = Math.max(1, ...data.buckets.map((b) => b.responses));
  const w = 100 / Math.max(1, data.buckets.length);
  const total = data.buckets.reduce((n, b) => n + b.responses, 0);
  const first = data.buckets[0]?.day;
  const last = data.buckets[data.buckets.length - 1]?.day;
  return (
    <section className="card over-time" aria-labelledby="over-time">
      <h2 id="over-time">Responses over time</h2>
      <svg
        viewBox="0 0 100 40"
        preserveAspectRatio="none"
        role="img"
        aria-label={`${total} responses ${data.step === 7 ? 'per week' : 'per day'} from ${first} to ${last}`}
      >
        {data.buckets.map((b, i) => {
          const hAll = (b.responses / max) * 38;
          const hDone = (b.completed / max) * 38;
          return (
            <g key={b.day}>
              <title>{`${formatDate(b.day, user)}: ${b.responses} responses, ${b.completed} completed`}</title>
              <rect x={i * w + w * 0.1} y={40 - hAll} width={w * 0.8} height={hAll} className="ot-all" />
              <rect x={i * w + w * 0.1} y={40 - hDone} width={w * 0.8} height={hDone} className="ot-done" />
            </g>
          );
        })}
      </svg>
      <p className="ot-axis muted">
        <span>{first ? formatDate(first, user) : ''}</span>
        <span>
          <i className="ot-done" /> completed <i className="ot-all" /> partial
        </span>
        <span>{last ? formatDate(last, user) : ''}</span>
      </p>
    </section>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: pageTitle(data ? `${data.survey.name} results` : 'Results', 'Surveys') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
