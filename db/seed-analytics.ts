import { sql } from 'drizzle-orm';
import { getDb } from './client';
import { rebuildAnalytics } from '../app/models/analytics/projection.server';
import { PRIORITIES } from './schema/inbox-constants';

/**
 * The demo's analytics (issue 21). The demo's two months of conversations are written in bulk, without the domain
 * events a live account would have written; this writes that history into the event log at the times the rows
 * say (creation, assignment, each message, resolution, SLA breaches), ordered by time as a live log is, leaving out
 * what the log already has (the workflow runs' past events of seed-data.ts), then rebuilds the account's projections from the log (ADR 090).
 */
export async function seedDemoAnalytics(opts: { accountId: number }) {
  const a = opts.accountId;
  const priorities = sql.raw(`(array[${PRIORITIES.map((p) => `'${p}'`).join(',')}])`);
  await getDb().execute(sql`
    with convs as (
      select c.* from conversations c
      where c.account_id = ${a} and c.deleted_at is null
    ),
    -- What the log already has of a conversation (live events, or the workflow runs' history in seed-data.ts): kept.
    known as (
      select d.subject_id, d.type, d.payload->>'target' as target, d.payload->>'messageId' as message_id from domain_events d
      where d.account_id = ${a} and d.subject_type = 'conversation'
    ),
    history as (
      select 'conversation_created' as type, c.id, jsonb_build_object('inboxId', c.inbox_id, 'contactId', c.contact_id, 'sourceType', c.source_type, 'subject', c.subject) as payload,
        'contact' as actor_type, c.contact_id as actor_id, c.created_at as at, 1 as ord
      from convs c where not exists (select 1 from known k where k.subject_id = c.id::text and k.type = 'conversation_created')
      union all
      select 'conversation_assigned', c.id, jsonb_build_object('assigneeId', c.assignee_id, 'teamId', c.team_id, 'previousAssigneeId', null, 'previousTeamId', null),
        'system', null, c.created_at + interval '1 minute', 2
      from convs c where (c.assignee_id is not null or c.team_id is not null)
        and not exists (select 1 from known k where k.subject_id = c.id::text and k.type = 'conversation_assigned')
      union all
      select 'message_created', c.id, jsonb_build_object('messageId', m.id, 'kind', m.kind),
        case when m.sender_user_id is not null then 'user' else 'contact' end, coalesce(m.sender_user_id, m.sender_contact_id), greatest(m.created_at, c.created_at), 3
      from convs c join messages m on m.conversation_id = c.id and m.account_id = ${a} where m.kind in ('incoming', 'outgoing')
        and not exists (select 1 from known k where k.subject_id = c.id::text and k.type = 'message_created' and k.message_id = m.id::text)
      union all
      select 'conversation_updated', c.id, jsonb_build_object('changed', jsonb_build_object('status', jsonb_build_object('from', 'open', 'to', 'resolved'))),
        case when c.assignee_id is null then 'system' else 'user' end, c.assignee_id, c.resolved_at, 4
      from convs c where c.status = 'resolved' and c.resolved_at is not null
        and not exists (select 1 from known k where k.subject_id = c.id::text and k.type = 'conversation_updated')
      union all
      select 'sla_breached', c.id, jsonb_build_object('target', t.target, 'policyId', c.sla_policy_id, 'priority', (${priorities})[c.priority + 1], 'inboxId', c.inbox_id, 'contactId', c.contact_id),
        'system', null, t.at, 5
      from convs c cross join lateral (values ('response', c.response_breached_at), ('resolve', c.resolve_breached_at)) t(target, at) where t.at is not null
        and not exists (select 1 from known k where k.subject_id = c.id::text and k.type = 'sla_breached' and k.target = t.target)
    )
    insert into domain_events (account_id, type, subject_type, subject_id, payload, actor_type, actor_id, occurred_at)
    select ${a}, h.type, 'conversation', h.id::text, h.payload, h.actor_type, h.actor_id, h.at from history h order by h.at, h.ord, h.id`);
  await seedDemoAreaHistory({ accountId: a });
  return rebuildAnalytics({ accountId: a });
}

/**
 * The history of the customers, reviews, surveys, forms and help-centre reports (ADR 102): the events the demo's
 * bulk-written rows (contacts, bookings, survey responses, form responses) would have had, at the rows' times, and
 * a believable trail of visits, form views, article views and votes and help-centre searches over the past 6 weeks
 * (the demo has no visitors of its own). Events already in the log (written live by the seed) are kept and moved
 * to the row's time where the row was back-dated.
 */
async function seedDemoAreaHistory(opts: { accountId: number }) {
  const a = opts.accountId;
  const db = getDb();
  // Reviews are written through the live path and then back-dated: their events follow.
  await db.execute(sql`
    update domain_events d set occurred_at = r.reviewed_at from reviews r
    where d.account_id = ${a} and r.account_id = ${a} and d.subject_type = 'review' and d.subject_id = r.id::text and d.type = 'review_received'`);
  await db.execute(sql`
    update domain_events d set occurred_at = greatest(r.replied_at, r.reviewed_at + interval '3 hours') from reviews r
    where d.account_id = ${a} and r.account_id = ${a} and d.subject_type = 'review' and d.subject_id = r.id::text and d.type = 'review_replied'`);
  await db.execute(sql`
    with known as (select type, subject_type, subject_id from domain_events where account_id = ${a}),
    rows as (
      select 'contact_created' as type, 'contact' as st, k.id::text as sid,
        jsonb_build_object('contactId', k.id, 'source', k.source, 'country', k.country) as payload, k.created_at as at
      from contacts k where k.account_id = ${a}
      union all
      select 'meeting_booked', 'meeting_booking', b.id::text,
        jsonb_build_object('meetingId', b.meeting_type_id, 'hostId', b.host_user_id, 'contactId', b.contact_id, 'startsAt', b.starts_at), least(b.created_at, b.starts_at - interval '2 days')
      from meeting_bookings b where b.account_id = ${a}
      union all
      select 'meeting_cancelled', 'meeting_booking', b.id::text,
        jsonb_build_object('meetingId', b.meeting_type_id, 'contactId', b.contact_id, 'startsAt', b.starts_at), coalesce(b.cancelled_at, b.starts_at - interval '1 day')
      from meeting_bookings b where b.account_id = ${a} and b.status = 'cancelled'
      union all
      select 'survey_received', 'survey_response', r.id::text,
        jsonb_build_object('surveyId', r.survey_id, 'kind', s.sub_type, 'channel', r.channel, 'contactId', r.contact_id,
          'rating', (select (v.value)::int from jsonb_each(r.answers) v where jsonb_typeof(v.value) = 'number' limit 1)),
        coalesce(r.completed_at, r.started_at)
      from survey_responses r join surveys s on s.id = r.survey_id and s.account_id = ${a}
      where r.account_id = ${a} and r.complete
      union all
      select 'form_submitted', 'form_response', fr.id::text, jsonb_build_object('formId', fr.form_id, 'contactId', fr.contact_id), fr.created_at
      from form_responses fr where fr.account_id = ${a}
    )
    insert into domain_events (account_id, type, subject_type, subject_id, payload, actor_type, actor_id, occurred_at)
    select ${a}, r.type, r.st, r.sid, r.payload, 'system', null, r.at from rows r
    where not exists (select 1 from known k where k.type = r.type and k.subject_type = r.st and k.subject_id = r.sid)
    order by r.at`);
  // Visits, form views, article views, votes and searches: deterministic (hashes of the day and number), 42 days.
  await db.execute(sql`
    with days as (select generate_series(0, 41) as d),
    pages(i, path) as (values (0, '/'), (1, '/pricing'), (2, '/features'), (3, '/blog/faster-support'), (4, '/contact'), (5, '/docs/getting-started')),
    refs(i, host) as (values (0, ''), (1, 'https://www.google.com/'), (2, 'https://www.bing.com/'), (3, 'https://news.ycombinator.com/'), (4, 'https://twitter.com/'), (5, '')),
    visits as (
      select d.d, v, now() - make_interval(days => d.d) - make_interval(mins => (abs(hashtext(d.d || ':' || v)) % 1400)) as at,
        abs(hashtext('p' || d.d || ':' || v)) % 6 as p, abs(hashtext('r' || d.d || ':' || v)) % 6 as r, 1 + abs(hashtext('n' || d.d || ':' || v)) % 4 as n
      from days d cross join generate_series(1, 5 + (abs(hashtext('c' || d.d)) % 8)) v
    ),
    views as (
      select vi.d, vi.v, vi.at + make_interval(mins => 2 * k) as at, (vi.p + k) % 6 as p, case when k = 0 then vi.r else -1 end as r, k
      from visits vi cross join generate_series(0, vi.n - 1) k
    ),
    articles as (select id, row_number() over (order by id) as rn, knowledge_base_id as kb from kb_articles where account_id = ${a} and published_at is not null order by id limit 12),
    forms_ as (select id, row_number() over (order by id) as rn from forms where account_id = ${a} and status = 'published'),
    queries(i, q, results) as (values (0, 'refund', 3), (1, 'reset password', 2), (2, 'shipping times', 4), (3, 'invoice', 2), (4, 'cancel subscription', 1), (5, 'gift card', 0), (6, 'api rate limit', 1), (7, 'dark mode', 0)),
    events as (
      select 'page_viewed' as type, 'page_view' as st, ('demo-' || w.d || '-' || w.v || '-' || w.k) as sid,
        jsonb_build_object('visitorId', 'demo-' || w.d || '-' || w.v, 'url', 'https://acme.example' || p.path,
          'referrer', case when w.r < 0 then 'https://acme.example/' else r.host end) as payload, w.at
      from views w join pages p on p.i = w.p left join refs r on r.i = w.r
      union all
      select 'form_viewed', 'form', f.id::text, jsonb_build_object('formId', f.id), now() - make_interval(days => d.d) - make_interval(mins => 37 * k)
      from days d cross join forms_ f cross join generate_series(1, 1 + abs(hashtext('f' || d.d || ':' || f.id)) % 4) k
      union all
      select 'kb_article_viewed', 'kb_article', ar.id::text, jsonb_build_object('articleId', ar.id, 'knowledgeBaseId', ar.kb), now() - make_interval(days => d.d) - make_interval(mins => 23 * k)
      from days d cross join articles ar cross join generate_series(1, greatest(1, 6 / ar.rn::int) + abs(hashtext('a' || d.d || ':' || ar.id)) % 2) k
      union all
      select 'kb_article_rated', 'kb_article', ar.id::text,
        jsonb_build_object('articleId', ar.id, 'knowledgeBaseId', ar.kb, 'helpful', abs(hashtext('h' || d.d || ':' || ar.id)) % 10 < case when ar.rn % 4 = 0 then 3 else 8 end, 'previous', null),
        now() - make_interval(days => d.d) - make_interval(mins => 41)
      from days d cross join articles ar where abs(hashtext('v' || d.d || ':' || ar.id)) % 3 = 0
      union all
      select 'kb_searched', 'kb_search', 'demo-' || d.d || '-' || k,
        jsonb_build_object('searchId', null, 'knowledgeBaseId', (select min(kb) from articles), 'query', q.q, 'resultCount', q.results),
        now() - make_interval(days => d.d) - make_interval(mins => 53 * k)
      from days d cross join generate_series(1, 3 + abs(hashtext('s' || d.d)) % 5) k join queries q on q.i = abs(hashtext('q' || d.d || ':' || k)) % 8
      where exists (select 1 from articles)
      union all
      select 'kb_search_clicked', 'kb_search', 'demo-' || d.d || '-' || k,
        jsonb_build_object('searchId', null, 'knowledgeBaseId', (select min(kb) from articles), 'query', q.q, 'articleId', (select min(id) from articles)),
        now() - make_interval(days => d.d) - make_interval(mins => 53 * k - 1)
      from days d cross join generate_series(1, 3 + abs(hashtext('s' || d.d)) % 5) k join queries q on q.i = abs(hashtext('q' || d.d || ':' || k)) % 8
      where exists (select 1 from articles) and q.results > 0 and abs(hashtext('k' || d.d || ':' || k)) % 5 < 2
    )
    insert into domain_events (account_id, type, subject_type, subject_id, payload, actor_type, actor_id, occurred_at)
    select ${a}, e.type, e.st, e.sid, e.payload, 'system', null, e.at from events e
    where not exists (select 1 from domain_events k where k.account_id = ${a} and k.type = e.type and k.type in ('page_viewed') and k.subject_id = e.sid)
    order by e.at`);
}
