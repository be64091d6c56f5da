import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { getDb, rawClientOf, type DbOrTx } from '../../../db/client';
import { getInboxBusinessHours } from '../automation/business-hours.server';
import { businessMsBetween, type BusinessHoursRules } from '../automation/business-time';
import { rollUpIn } from './rollup.server';

/**
 * The analytics projections (ADR 090). Every figure is a function of one event and the events before it in the log
 * (the conversation's creation, its latest assignment before the event, whether an earlier reply exists), never of
 * the order or size of the engine's batches: counting the events one batch at a time or all at once (the rebuild)
 * gives the same counters.
 */
export const PROJECTED_EVENT_TYPES = [
  'conversation_created',
  'conversation_updated',
  'message_created',
  'survey_received',
  'sla_breached',
  // Customers, reviews, surveys, forms and the help centre (ADR 102).
  'contact_created',
  'page_viewed',
  'meeting_booked',
  'meeting_cancelled',
  'review_received',
  'review_replied',
  'form_viewed',
  'form_submitted',
  'kb_article_viewed',
  'kb_article_rated',
  'kb_searched',
  'kb_search_clicked',
  'kb_search_converted',
  // SLA targets met (ADR 103).
  'sla_met',
  // Sales and goals (ADR 104).
  'sale_recorded',
  'goal_reached',
] as const;

/** Advisory-lock class of the projections: the handler holds it shared per account, the rebuild exclusive. */
const LOCK_CLASS = 90;

const TYPES_SQL = sql.raw(PROJECTED_EVENT_TYPES.map((t) => `'${t}'`).join(', '));
/** The projected types whose facts are not in the conversations-only statement (all but these two). */
const CONVERSATION_TYPES: readonly string[] = ['message_created', 'conversation_updated'];
const OTHER_TYPES_SQL = sql.raw(
  PROJECTED_EVENT_TYPES.filter((t) => !CONVERSATION_TYPES.includes(t))
    .map((t) => `'${t}'`)
    .join(', '),
);

/**
 * The facts of the customers, reviews, surveys, forms and help-centre pages (ADR 102, definitions in
 * docs/analytics.md): counts with their dimensions in \`extra\`. A fact may count -1 (a changed vote, a search typed
 * on): the counters are sums.
 */
const AREA_FACTS = sql.raw(`
      union all
      select account_id, occurred_at, 'contacts_new', 1, 0, null, null, null, null, null,
        jsonb_build_object('source', coalesce(nullif(payload->>'source', ''), 'unknown'), 'country', coalesce(nullif(payload->>'country', ''), 'unknown'))
      from x where type = 'contact_created'
      union all
      select x.account_id, x.occurred_at, 'contacts_returning', 1, 0, null, x.payload->>'inboxId', x.payload->>'sourceType', null, null, null
      from x where x.type = 'conversation_created' and x.payload->>'contactId' ~ '^[0-9]+$'
        and exists (
          select 1 from conversations c where c.account_id = x.account_id and c.contact_id = (x.payload->>'contactId')::int and c.id < x.conv::int
        )
      union all
      select x.account_id, x.occurred_at, 'page_views', 1, 0, null, null, null, null, null,
        jsonb_build_object('page', left(coalesce(substring(x.payload->>'url' from '^[a-zA-Z]+://[^/?#]+([^?#]*)'), x.payload->>'url', ''), 300))
      from x where x.type = 'page_viewed'
      union all
      select x.account_id, x.occurred_at, 'visits', 1, 0, null, null, null, null, null,
        jsonb_build_object('referrer', coalesce(lower(substring(x.payload->>'referrer' from '^[a-zA-Z]+://([^/?#:]+)')), '(direct)'))
      from x where x.type = 'page_viewed'
        and not exists (
          select 1 from domain_events d
          where d.account_id = x.account_id and d.type = 'page_viewed' and d.id < x.id
            and d.occurred_at >= x.occurred_at - interval '30 minutes' and d.occurred_at <= x.occurred_at
            and d.payload->>'visitorId' = x.payload->>'visitorId'
        )
      union all
      select account_id, occurred_at, 'meetings_booked', 1, 0, null, null, null, null, null,
        jsonb_build_object('meeting', payload->>'meetingId', 'host', payload->>'hostId')
      from x where type = 'meeting_booked'
      union all
      select x.account_id, x.occurred_at, 'meetings_cancelled', 1, 0, null, null, null, null, null,
        jsonb_build_object('meeting', x.payload->>'meetingId', 'host', coalesce(x.payload->>'hostId', bk.payload->>'hostId'))
      from x left join lateral (
        select d.payload from domain_events d
        where d.account_id = x.account_id and d.subject_type = 'meeting_booking' and d.subject_id = x.subj and d.type = 'meeting_booked'
        order by d.id limit 1
      ) bk on true
      where x.type = 'meeting_cancelled'
      union all
      select account_id, occurred_at, m.metric, 1, case when m.metric = 'reviews_rated' then (payload->>'rating')::float8 else 0 end, null, null, null, null, null,
        jsonb_build_object('source', coalesce(payload->>'channel', 'unknown'))
      from x cross join lateral (values ('reviews'), ('reviews_rated')) m(metric)
      where type = 'review_received' and (m.metric = 'reviews' or payload->>'rating' ~ '^[0-9]+(\\.[0-9]+)?$')
      union all
      select x.account_id, x.occurred_at, 'reviews_replied', 1, 0, null, null, null, null, null,
        jsonb_build_object('source', coalesce(rv.payload->>'channel', x.payload->>'sourceKind', 'unknown'))
      from x
      left join lateral (
        select d.payload from domain_events d
        where d.account_id = x.account_id and d.subject_type = 'review' and d.subject_id = x.subj and d.type = 'review_received'
        order by d.id limit 1
      ) rv on true
      where x.type = 'review_replied'
        and not exists (
          select 1 from domain_events d
          where d.account_id = x.account_id and d.subject_type = 'review' and d.subject_id = x.subj and d.type = 'review_replied' and d.id < x.id
        )
      union all
      select account_id, occurred_at, m.metric, 1, case when m.metric in ('survey_rated', 'ces_rated') then (payload->>'rating')::float8 else 0 end, null, null, null, null, null,
        jsonb_build_object('survey', payload->>'surveyId', 'kind', coalesce(payload->>'kind', 'unknown'))
      from x cross join lateral (values ('survey_responses'), ('survey_rated'), ('nps_rated'), ('nps_promoters'), ('nps_detractors'), ('csat_rated'), ('survey_satisfied'), ('ces_rated')) m(metric)
      where type = 'survey_received'
        and case m.metric
          when 'survey_responses' then true
          when 'survey_rated' then payload->>'rating' ~ '^[0-9]+$'
          when 'nps_rated' then payload->>'kind' = 'nps' and payload->>'rating' ~ '^[0-9]+$'
          when 'nps_promoters' then payload->>'kind' = 'nps' and payload->>'rating' ~ '^[0-9]+$' and (payload->>'rating')::int >= 9
          when 'nps_detractors' then payload->>'kind' = 'nps' and payload->>'rating' ~ '^[0-9]+$' and (payload->>'rating')::int <= 6
          when 'csat_rated' then payload->>'kind' = 'csat' and payload->>'rating' ~ '^[0-9]+$'
          when 'ces_rated' then payload->>'kind' = 'ces' and payload->>'rating' ~ '^[0-9]+$'
          else payload->>'kind' = 'csat' and payload->>'rating' ~ '^[0-9]+$' and (payload->>'rating')::int >= 4
        end
      union all
      select account_id, occurred_at, case when type = 'form_viewed' then 'form_views' else 'form_submissions' end, 1, 0, null, null, null, null, null,
        jsonb_build_object('form', payload->>'formId')
      from x where type in ('form_viewed', 'form_submitted')
      union all
      select account_id, occurred_at, 'article_views', 1, 0, null, null, null, null, null,
        jsonb_build_object('article', payload->>'articleId', 'kb', payload->>'knowledgeBaseId')
      from x where type = 'kb_article_viewed'
      union all
      select account_id, occurred_at, m.metric,
        case when m.yes is null then (case when payload->>'previous' is null then 1 else 0 end)
          else (case when (payload->>'helpful')::boolean = m.yes then 1 else 0 end) - (case when (payload->>'previous')::boolean = m.yes then 1 else 0 end) end,
        0, null, null, null, null, null,
        jsonb_build_object('article', payload->>'articleId', 'kb', payload->>'knowledgeBaseId')
      from x cross join lateral (values ('article_helpful', true), ('article_unhelpful', false), ('article_votes', null::boolean)) m(metric, yes)
      where type = 'kb_article_rated'
      union all
      select account_id, occurred_at, m.metric, q.sign, 0, null, null, null, null, null,
        jsonb_build_object('query', q.query, 'kb', payload->>'knowledgeBaseId')
      from x
      cross join lateral (
        select lower(left(payload->>'query', 200)) as query, 1 as sign, (payload->>'resultCount')::int as results
        union all
        select lower(left(payload->>'previousQuery', 200)), -1, (payload->>'previousResultCount')::int where payload->>'previousQuery' is not null
      ) q
      cross join lateral (values ('searches'), ('searches_no_result')) m(metric)
      where type = 'kb_searched' and (m.metric = 'searches' or q.results = 0)
      union all
      select account_id, occurred_at, 'searches_clicked', 1, 0, null, null, null, null, null,
        jsonb_build_object('query', lower(left(payload->>'query', 200)), 'kb', payload->>'knowledgeBaseId')
      from x where type = 'kb_search_clicked'
      union all
      select account_id, occurred_at, 'searches_converted', 1, 0, null, null, null, null, null,
        jsonb_build_object('query', lower(left(payload->>'query', 200)), 'kb', payload->>'knowledgeBaseId')
      from x where type = 'kb_search_converted'`);

/**
 * The facts of every event type but a message's and a conversation's update (ADR 135): CSAT, SLA, the areas'
 * (AREA_FACTS), sales and goals. A batch with neither leaves them out of its statement (`conversationsOnly`).
 */
const OTHER_FACTS = sql`      union all
      select account_id, occurred_at, m.metric, 1, (payload->>'rating')::float8, null, coalesce(payload->>'inboxId', cp->>'inboxId'), cp->>'sourceType', ap->>'teamId', ap->>'assigneeId', tg
      from x cross join lateral (values ('csat'), ('csat_satisfied')) m(metric)
      where type = 'survey_received' and payload->>'kind' = 'csat' and payload->>'rating' ~ '^[0-9]+$'
        and (m.metric = 'csat' or (payload->>'rating')::int >= 4)
      union all
      select account_id, occurred_at, 'sla_breached', 1, 0, null, coalesce(payload->>'inboxId', cp->>'inboxId'), cp->>'sourceType', ap->>'teamId', ap->>'assigneeId',
        jsonb_strip_nulls(jsonb_build_object('policy', payload->>'policyId', 'priority', payload->>'priority', 'target', payload->>'target')) || tg
      from x where type = 'sla_breached'
      union all
      -- Targets due (met or breached) and met (ADR 103), with the breaches' dimensions.
      select account_id, occurred_at, m.metric, 1, 0, null, coalesce(payload->>'inboxId', cp->>'inboxId'), cp->>'sourceType', ap->>'teamId', ap->>'assigneeId',
        jsonb_strip_nulls(jsonb_build_object('policy', payload->>'policyId', 'priority', payload->>'priority', 'target', payload->>'target')) || tg
      from x cross join lateral (values ('sla_met'), ('sla_due')) m(metric)
      where type in ('sla_met', 'sla_breached') and (m.metric = 'sla_due' or type = 'sla_met')
${AREA_FACTS}
      union all
      -- Sales and goals (ADR 104): attributed to the conversation the event names (decided when recorded), so to its
      -- inbox, channel, team and agent; revenue is counted per currency (metric revenue:<ISO code>).
      select account_id, occurred_at, m.metric, 1, case when m.metric like 'revenue%' then (payload->>'amountMinor')::float8 else 0 end, null,
        cp->>'inboxId', cp->>'sourceType', ap->>'teamId', ap->>'assigneeId', jsonb_strip_nulls(jsonb_build_object('tracker', payload->>'saleTrackerId'))
      from x cross join lateral (values ('sales'), ('sales_attributed'), ('revenue:' || upper(payload->>'currency')), ('revenue_attributed:' || upper(payload->>'currency'))) m(metric)
      where type = 'sale_recorded' and payload->>'amountMinor' ~ '^-?[0-9]+$' and payload->>'currency' ~ '^[A-Za-z]{3}$'
        and (m.metric not like '%attributed%' or conv is not null)
      union all
      select account_id, occurred_at, m.metric, 1, 0, null, cp->>'inboxId', cp->>'sourceType', ap->>'teamId', ap->>'assigneeId', jsonb_build_object('goal', payload->>'goalId')
      from x cross join lateral (values ('goal_reached'), ('goal_attributed')) m(metric)
      where type = 'goal_reached' and payload->>'goalId' is not null and (m.metric = 'goal_reached' or conv is not null)`;

/**
 * A `facts` CTE's lines, one per dimension the fact carries, upserted into the counters and the histograms.
 */
const LINES_AND_UPSERT = sql.raw(`
    lines as (
      select f.account_id, date_bin('1 hour', f.occurred_at, timestamptz '2000-01-01 00:00:00+00') as hour, f.metric, d.dim, d.key, f.n, f.total, f.secs
      from facts f
      cross join lateral (
        select 'all'::text, ''::text
        union all select 'inbox', f.inbox where f.inbox is not null
        union all select 'channel', f.channel where f.channel is not null
        union all select 'team', f.team where f.team is not null
        union all select 'agent', f.agent where f.agent is not null
        union all select k, v from jsonb_each_text(coalesce(f.extra, '{}'::jsonb) - 'tags') j(k, v) where v is not null
        union all select 'tag', t from jsonb_array_elements_text(case when jsonb_typeof(f.extra->'tags') = 'array' then f.extra->'tags' else '[]'::jsonb end) tt(t)
        -- Inbox, channel and agent under a tag (ADR 120): key '<tag>:<value>', so the inbox, channels and users pages
        -- break their figures down under a tag filter. A fact's tags are those of its conversation (or the tag given).
        union all select v.d || '_tag', tt.t || ':' || v.k
          from jsonb_array_elements_text(case when jsonb_typeof(f.extra->'tags') = 'array' then f.extra->'tags'
            when f.metric = 'tagged' then jsonb_build_array(f.extra->'tag') else '[]'::jsonb end) tt(t)
          cross join (values ('inbox', f.inbox), ('channel', f.channel), ('agent', f.agent)) v(d, k)
          where v.k is not null
      ) d(dim, key)
      where f.n <> 0
    ),
    counted as (
      insert into analytics_counters (account_id, metric, dim, key, hour, n, total)
      select account_id, metric, dim, key, hour, sum(n), sum(total) from lines group by 1, 2, 3, 4, 5
      on conflict (account_id, metric, dim, key, hour)
      do update set n = analytics_counters.n + excluded.n, total = analytics_counters.total + excluded.total
      returning 1
    ),
    binned as (
      insert into analytics_durations (account_id, metric, dim, key, hour, bin, n)
      select account_id, metric, dim, key, hour, floor(4 * ln(1 + secs) / ln(2))::smallint, count(*) from lines where secs is not null group by 1, 2, 3, 4, 5, 6
      on conflict (account_id, metric, dim, key, hour, bin)
      do update set n = analytics_durations.n + excluded.n
      returning 1
    )`);

/**
 * The counters and histogram lines of the events `ev` (a CTE over domain_events rows), upserted in one statement.
 * `prefix` holds the CTEs `ev` is built from (the ledger claim, or a range of the log).
 */
function projectStatement(prefix: SQL, conversationsOnly = false) {
  return sql`
    ${prefix},
    x as (
      select e.id, e.account_id, e.type, e.occurred_at, e.payload, e.actor_type, e.actor_id, e.conv, e.subject_id as subj,
        cc.payload as cp, cc.occurred_at as created_at, asg.payload as ap, jsonb_build_object('tags', tg.tags) as tg
      from (
        select ev.*, case when ev.subject_type = 'conversation' then ev.subject_id else ev.payload->>'conversationId' end as conv
        from ev where ev.type in (${TYPES_SQL})
      ) e
      left join lateral (
        select d.payload, d.occurred_at from domain_events d
        where d.account_id = e.account_id and d.subject_type = 'conversation' and d.subject_id = e.conv and d.type = 'conversation_created'
        order by d.id limit 1
      ) cc on e.conv is not null
      left join lateral (
        select d.payload from domain_events d
        where d.account_id = e.account_id and d.subject_type = 'conversation' and d.subject_id = e.conv and d.type = 'conversation_assigned' and d.id < e.id
        order by d.id desc limit 1
      ) asg on e.conv is not null and e.type <> 'conversation_created'
      left join lateral (
        -- The conversation's tags when the event happened (ADR 102): its tag changes in the log up to the event.
        select jsonb_agg(t.tag) as tags from (
          select tc.tag from domain_events d
          cross join lateral (
            select a.tag, 1 as sign from jsonb_array_elements_text(case when jsonb_typeof(d.payload->'changed'->'tags'->'added') = 'array' then d.payload->'changed'->'tags'->'added' else '[]'::jsonb end) a(tag)
            union all
            select r.tag, -1 from jsonb_array_elements_text(case when jsonb_typeof(d.payload->'changed'->'tags'->'removed') = 'array' then d.payload->'changed'->'tags'->'removed' else '[]'::jsonb end) r(tag)
          ) tc
          -- Exactly the predicate of domain_events_conversation_tags_idx (ADR 127): only the tag changes are read.
          where d.account_id = e.account_id and d.subject_id = e.conv and d.id <= e.id
            and d.subject_type = 'conversation' and d.type = 'conversation_updated' and (d.payload -> 'changed') ? 'tags'
          group by tc.tag having sum(tc.sign) > 0
        ) t
      ) tg on e.conv is not null and e.type <> 'conversation_created'
    ),
    facts as (
      select account_id, occurred_at, 'conversations' as metric, 1 as n, 0::float8 as total, null::float8 as secs,
        payload->>'inboxId' as inbox, payload->>'sourceType' as channel, null::text as team, null::text as agent, null::jsonb as extra
      from x where type = 'conversation_created'
      union all
      select account_id, occurred_at, 'incoming_messages', 1, 0, null, cp->>'inboxId', cp->>'sourceType', ap->>'teamId', ap->>'assigneeId', tg
      from x where type = 'message_created' and payload->>'kind' = 'incoming'
      union all
      select account_id, occurred_at, 'replies', 1, 0, null, cp->>'inboxId', cp->>'sourceType', ap->>'teamId', actor_id::text, tg
      from x where type = 'message_created' and payload->>'kind' = 'outgoing' and actor_type = 'user'
      union all
      select account_id, occurred_at, 'first_response', 1, s, s, cp->>'inboxId', cp->>'sourceType', ap->>'teamId', actor_id::text, tg
      from x cross join lateral (select greatest(0, extract(epoch from occurred_at - created_at))::float8 as s) secs
      where type = 'message_created' and payload->>'kind' = 'outgoing' and actor_type = 'user' and created_at is not null
        and not exists (
          select 1 from domain_events d
          where d.account_id = x.account_id and d.subject_type = 'conversation' and d.subject_id = x.conv and d.type = 'message_created'
            and d.payload->>'kind' = 'outgoing' and d.actor_type = 'user' and d.id < x.id
        )
      union all
      -- conversation_updated counts only here ('resolved') and below ('tagged'): the engine's handler queues no other
      -- update for analytics (engine/handlers/analytics.ts, wants); a new fact of an update must be added there too.
      select account_id, occurred_at, 'resolved', 1, s, s, cp->>'inboxId', cp->>'sourceType', ap->>'teamId', ap->>'assigneeId', tg
      from x cross join lateral (select greatest(0, extract(epoch from occurred_at - created_at))::float8 as s) secs
      where type = 'conversation_updated' and payload->'changed'->'status'->>'to' = 'resolved' and created_at is not null
      union all
      select account_id, occurred_at, 'tagged', 1, 0, null, cp->>'inboxId', cp->>'sourceType', ap->>'teamId', ap->>'assigneeId', jsonb_build_object('tag', t.tag)
      from x cross join lateral jsonb_array_elements_text(case when jsonb_typeof(payload->'changed'->'tags'->'added') = 'array' then payload->'changed'->'tags'->'added' else '[]'::jsonb end) t(tag)
      where type = 'conversation_updated'
${conversationsOnly ? sql`` : OTHER_FACTS}
    ),
${LINES_AND_UPSERT}
    select (select count(*) from counted)::int as counters, (select count(*) from binned)::int as bins,
      (select coalesce(jsonb_agg(jsonb_build_object('account_id', account_id, 'occurred_at', occurred_at, 'metric', metric || '_bh', 'secs', secs,
        'inbox', inbox, 'channel', channel, 'team', team, 'agent', agent, 'extra', extra)), '[]'::jsonb)
       from facts where metric in ('first_response', 'resolved') and secs is not null) as durations`;
}

const dialect = new PgDialect();

/**
 * Runs `query` as a named prepared statement of the transaction's connection (ADR 135). drizzle's `execute` sends an
 * unnamed statement, which PostgreSQL parses, analyses and plans again on every call: for the projection statement
 * (some 15 kB of SQL, 26 branches) that cost more than running it. postgres.js keeps one prepared statement per
 * connection and query text, so each connection plans it once (a generic plan: `plan_cache_mode` below) and every
 * later batch only binds the ids. The text must not vary with the batch: only parameters may.
 */
async function prepared<T extends Record<string, unknown>>(tx: DbOrTx, query: SQL): Promise<T[]> {
  const { sql: text, params } = dialect.sqlToQuery(query);
  return (await rawClientOf(tx).unsafe(text, params as never[], { prepare: true })) as unknown as T[];
}

type DurationFact = { account_id: number; occurred_at: string; metric: string; secs: number; inbox: string | null; channel: string | null; team: string | null; agent: string | null; extra: unknown };

/**
 * Business-hours durations (ADR 120): the first-response and resolution facts the statement just counted, measured
 * again with the business-time calculator the SLA uses, over the business hours of the conversation's inbox (calendar
 * time for an inbox without them), counted as `first_response_bh` and `resolved_bh` with the same dimensions, in the
 * same transaction.
 */
async function projectBusinessHours(tx: DbOrTx, facts: DurationFact[]) {
  if (facts.length === 0) return;
  const rules = new Map<string, BusinessHoursRules | null>();
  for (const f of facts) {
    const key = `${f.account_id}:${f.inbox ?? ''}`;
    if (!rules.has(key)) {
      const inboxId = Number(f.inbox);
      rules.set(key, f.inbox && Number.isSafeInteger(inboxId) ? await getInboxBusinessHours({ accountId: f.account_id, inboxId }, tx) : null);
    }
  }
  const measured = facts.map((f) => {
    const end = new Date(f.occurred_at);
    const start = new Date(end.getTime() - f.secs * 1000);
    return { ...f, secs: businessMsBetween(rules.get(`${f.account_id}:${f.inbox ?? ''}`) ?? null, start, end) / 1000 };
  });
  await prepared(
    tx,
    sql`
    with facts as (
      select account_id, occurred_at, metric, 1 as n, secs as total, secs, inbox, channel, team, agent, extra
      from jsonb_to_recordset(${JSON.stringify(measured)}::jsonb)
        as f(account_id int, occurred_at timestamptz, metric text, secs float8, inbox text, channel text, team text, agent text, extra jsonb)
    ),
${LINES_AND_UPSERT}
    select (select count(*) from counted)::int as counters`,
  );
}

/**
 * The ledger claim of the events `ids` (a `{1,2,…}` literal) and their counters, as one statement. `conversationsOnly`
 * (only when none of the events is of another projected type than a message or a conversation's update) leaves the
 * other types' facts out, which they would not match anyway.
 */
export function claimAndProject(ids: string, conversationsOnly = false) {
  return projectStatement(
    sql`
        with fresh as (
          insert into analytics_applied_events (event_id, account_id)
          -- The events by id only (OFFSET 0 keeps the type test out of the scan): a plan that also read the type index
          -- read every projected event of the log, a cost that grew with the log (ADR 127).
          select id, account_id from (select id, account_id, type from domain_events where id = any(${ids}::bigint[]) offset 0) d
          where type in (${TYPES_SQL})
          on conflict (event_id) do nothing
          returning event_id
        ),
        ev as (select d.* from domain_events d where d.id in (select event_id from fresh))`,
    conversationsOnly,
  );
}

/**
 * Counts a batch of events, once each: the ledger claim (`analytics_applied_events`, insert … on conflict do
 * nothing) and the counters are one statement, so a redelivered event, already in the ledger, adds nothing.
 * Returns the ids counted now.
 */
export async function projectEvents(opts: { eventIds: number[]; db?: DbOrTx }) {
  if (opts.eventIds.length === 0) return { counted: 0 };
  const ids = `{${opts.eventIds.map((id) => Math.trunc(Number(id))).join(',')}}`;
  return (opts.db ?? getDb()).transaction(async (tx) => {
    // Shared per account: many batches at once, but never while that account is being rebuilt. The commit does not
    // wait for the disk (as the engine's verdicts do, ADR 106): the job's completion commits after it, synchronously,
    // and flushes the log up to and past this commit, so a completed job never lacks its counters. The projection
    // statement keeps one generic plan per connection (ADR 127): planning it again for every batch cost as much as
    // running it; its look-ups go through partial indexes, so that plan does not depend on the batch or statistics.
    // It also says whether the batch holds only messages and conversation updates (the engine's usual batch): then
    // the statement without the other types' facts runs (ADR 135), a plan a quarter the size. Read from the rows, not
    // from the caller, so an event of another type always gets its facts.
    const locks = await prepared<{ plain: boolean }>(
      tx,
      sql`
      select set_config('synchronous_commit', 'off', true), set_config('plan_cache_mode', 'force_generic_plan', true),
        pg_advisory_xact_lock_shared(${LOCK_CLASS}, a), plain from (
        select account_id as a, bool_and(type not in (${OTHER_TYPES_SQL})) as plain from domain_events where id = any(${ids}::bigint[]) group by 1 order by 1
      ) s`,
    );
    const conversationsOnly = locks.length > 0 && locks.every((l) => l.plain);
    const rows = await prepared<{ counters: number; bins: number; durations: DurationFact[] }>(tx, claimAndProject(ids, conversationsOnly));
    await projectBusinessHours(tx, rows[0]?.durations ?? []);
    return { counted: Number(rows[0]?.counters ?? 0) };
  });
}

/**
 * Recomputes an account's projections from its event log (ADR 090): deletes them, marks every projected event as
 * counted, and counts the log in ranges of event ids, in one transaction that holds the account's lock exclusively
 * (the engine's batches for the account wait, then find their events already counted).
 */
export async function rebuildAnalytics(opts: { accountId: number; chunk?: number; onChunk?: (done: number, of: number) => void }) {
  const chunk = opts.chunk ?? 50_000;
  return getDb().transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${LOCK_CLASS}, ${opts.accountId})`);
    await tx.execute(sql`delete from analytics_counters where account_id = ${opts.accountId}`);
    await tx.execute(sql`delete from analytics_durations where account_id = ${opts.accountId}`);
    await tx.execute(sql`delete from analytics_counters_daily where account_id = ${opts.accountId}`);
    await tx.execute(sql`delete from analytics_durations_daily where account_id = ${opts.accountId}`);
    await tx.execute(sql`delete from analytics_rollups where account_id = ${opts.accountId}`);
    await tx.execute(sql`
      insert into analytics_applied_events (event_id, account_id)
      select id, account_id from domain_events where account_id = ${opts.accountId} and type in (${TYPES_SQL})
      on conflict (event_id) do nothing`);
    const [bounds] = await tx.execute<{ lo: string | null; hi: string | null; events: string }>(sql`
      select min(id)::text as lo, max(id)::text as hi, count(*)::text as events
      from domain_events where account_id = ${opts.accountId} and type in (${TYPES_SQL})`);
    if (!bounds?.lo || !bounds.hi) return { events: 0 };
    for (let from = Number(bounds.lo); from <= Number(bounds.hi); from += chunk) {
      const [row] = await tx.execute<{ durations: DurationFact[] }>(
        projectStatement(sql`
          with ev as (
            select d.* from domain_events d
            where d.account_id = ${opts.accountId} and d.id >= ${from} and d.id < ${from + chunk}
          )`),
      );
      await projectBusinessHours(tx, row?.durations ?? []);
      opts.onChunk?.(Math.min(from + chunk, Number(bounds.hi) + 1) - Number(bounds.lo), Number(bounds.hi) - Number(bounds.lo) + 1);
    }
    // The per-day roll-up (ADR 125) of the counters just rebuilt, every day again.
    await rollUpIn(tx, { accountId: opts.accountId, full: { upto: Number(bounds.hi) } });
    return { events: Number(bounds.events) };
  });
}

/** Every account's projections rebuilt, one account per transaction. */
export async function rebuildAllAnalytics() {
  const accounts = await getDb().execute<{ id: number }>(sql`select id from accounts order by id`);
  let events = 0;
  for (const a of accounts) events += (await rebuildAnalytics({ accountId: Number(a.id) })).events;
  return { accounts: accounts.length, events };
}
