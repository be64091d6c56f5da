import { sql } from 'drizzle-orm';
import type { Tx } from '../../../db/client';
import { emitEvent } from '../events/events.server';

/** How long after a search a conversation of the same visitor still counts as the search's outcome (ADR 120). */
export const SEARCH_CONVERSION_MINUTES = 30;

/**
 * "Searches that ended in a conversation" (ADR 120): when a messenger visitor starts a conversation, their latest
 * help-centre search of the last 30 minutes (its `kb_searched` event names the visitor) gets a
 * `kb_search_converted` event, in the transaction that opens the conversation. A typed-on search is one search, so
 * its latest event names its last query. Once per search.
 */
export async function recordSearchConversion(tx: Tx, opts: { accountId: number; visitorId: string; conversationId: number; now?: Date }) {
  const now = opts.now ?? new Date();
  const [search] = await tx.execute<{ id: number; payload: { searchId?: number; query?: string; knowledgeBaseId?: number } }>(sql`
    select d.id, d.payload from domain_events d
    where d.account_id = ${opts.accountId} and d.type = 'kb_searched'
      and d.occurred_at >= ${new Date(now.getTime() - SEARCH_CONVERSION_MINUTES * 60_000).toISOString()}::timestamptz
      and d.payload->>'visitorId' = ${opts.visitorId}
    order by d.id desc limit 1`);
  if (!search?.payload.searchId) return null;
  const [done] = await tx.execute<{ id: number }>(sql`
    select d.id from domain_events d
    where d.account_id = ${opts.accountId} and d.subject_type = 'kb_search' and d.subject_id = ${String(
    search.payload.searchId,
  )} and d.type = 'kb_search_converted'
    limit 1`);
  if (done) return null;
  return emitEvent(tx, {
    accountId: opts.accountId,
    type: 'kb_search_converted',
    subjectType: 'kb_search',
    subjectId: search.payload.searchId,
    payload: {
      searchId: search.payload.searchId,
      knowledgeBaseId: search.payload.knowledgeBaseId,
      query: search.payload.query,
      conversationId: opts.conversationId,
      visitorId: opts.visitorId,
    },
    causedByEventId: Number(search.id),
  });
}
