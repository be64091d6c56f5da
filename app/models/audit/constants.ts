import { DOMAIN_EVENT_TYPES } from '../events/types';

/** What the audit log screen needs in the browser too (no server code here). */

/** Events that record what a visitor looked at or who is online, not a change anyone made: not in the audit log. */
export const NOT_AUDITED = ['page_viewed', 'agent_presence_changed', 'visitor_identified', 'form_viewed', 'kb_article_viewed', 'kb_article_rated', 'kb_searched', 'kb_search_clicked', 'kb_search_converted'] as const;
export const AUDITED_TYPES = DOMAIN_EVENT_TYPES.filter((t) => !(NOT_AUDITED as readonly string[]).includes(t));
export const AUDIT_PAGE_SIZE = 25;
/** The pager counts at most this many matching rows: a count over millions of events would cost more than the page. */
export const AUDIT_COUNT_CAP = 10_000;

/** "tag_updated" → "Tag updated". */
export function describeType(type: string) {
  const s = type.replace(/_/g, ' ');
  return s[0].toUpperCase() + s.slice(1);
}

/** The object kinds an event can be about, read from the event types ("tag_updated" → "tag"). */
export const AUDIT_OBJECT_TYPES = [
  ...new Set([
    ...AUDITED_TYPES.map((t) => t.replace(/_(created|updated|deleted|assigned|received|breached|imported|retried|dismissed|changed|signed_up|invited|activated|access_changed|identified|connected|disconnected|booked|rescheduled|cancelled|erased)$/, '')),
    'meeting_booking',
  ]),
].sort();

