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
  return rebuildAnalytics({ accountId: a });
}
