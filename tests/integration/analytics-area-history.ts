import { createInbox } from '../../app/models/inbox/inboxes.server';
import { openConversation } from '../../app/models/inbox/conversations.server';
import { writeHistory } from './analytics-history';

/**
 * A small hand-made history of the customers, reviews, surveys, forms and help-centre pages (ADR 102), on 10 and 11
 * November 2026 (UTC) like analytics-history.ts, written straight into the event log, and the figures a person
 * computes from it (the comments give the sums).
 */
export async function seedAreaHistory(opts: { accountId: number; agentId: number }) {
  const { accountId, agentId } = opts;
  const inbox = await createInbox({ accountId, actorId: agentId, name: 'Chat', channelType: 'web' });
  // Two real conversations of one contact (the returning figure looks for an earlier conversation of the contact).
  const open = (at: string) =>
    openConversation({
      accountId,
      inboxId: inbox.id,
      sourceType: 'web',
      subject: 'Hello',
      contact: { email: `back-${accountId}@history.test`, name: 'Back Again' },
      message: { kind: 'incoming', text: 'Hi', createdAt: new Date(at) },
    });
  const first = await open('2026-11-10T08:00:00Z');
  const second = await open('2026-11-11T08:00:00Z');
  const contactId = first.conversation.contactId;

  type E = { type: string; subjectType: string; subject: string | number; at: string; payload: Record<string, unknown>; actor?: number };
  const ev = (type: string, subjectType: string, subject: string | number, at: string, payload: Record<string, unknown>, actor?: number): E => ({
    type,
    subjectType,
    subject,
    at,
    payload,
    actor,
  });
  const events: E[] = [
    // Contacts: 3 new (crm 2, form 1; France 2, unknown 1); conversations: the first is new, the second returning.
    ev('contact_created', 'contact', 1, '10T08:00', { source: 'crm', country: 'France' }),
    ev('contact_created', 'contact', 2, '10T09:00', { source: 'form', country: null }),
    ev('contact_created', 'contact', 3, '11T09:00', { source: 'crm', country: 'France' }),
    ev('conversation_created', 'conversation', first.conversation.id, '10T08:00', { inboxId: inbox.id, contactId, sourceType: 'web' }),
    ev('conversation_created', 'conversation', second.conversation.id, '11T08:00', { inboxId: inbox.id, contactId, sourceType: 'web' }),
    // Visitors: v1 two pages 10 minutes apart (one visit), then 50 minutes later a new visit; v2 one visit. 4 views, 3 visits.
    ev('page_viewed', 'page_view', 1, '10T09:00', { visitorId: 'v1', url: 'https://shop.test/pricing?x=1', referrer: 'https://www.google.com/search?q=a' }),
    ev('page_viewed', 'page_view', 2, '10T09:10', { visitorId: 'v1', url: 'https://shop.test/pricing/plans', referrer: 'https://shop.test/pricing' }),
    ev('page_viewed', 'page_view', 3, '10T10:00', { visitorId: 'v1', url: 'https://shop.test/', referrer: '' }),
    ev('page_viewed', 'page_view', 4, '11T12:00', { visitorId: 'v2', url: 'https://shop.test/', referrer: 'https://news.ycombinator.com/item' }),
    // Meetings: 3 booked (type 11 twice, 12 once), booking 2 cancelled (its host read from the booking's event).
    ev('meeting_booked', 'meeting_booking', 1, '10T09:00', { meetingId: 11, hostId: agentId }),
    ev('meeting_booked', 'meeting_booking', 2, '10T11:00', { meetingId: 11, hostId: agentId }),
    ev('meeting_booked', 'meeting_booking', 3, '11T09:00', { meetingId: 12, hostId: agentId }),
    ev('meeting_cancelled', 'meeting_booking', 2, '11T10:00', { meetingId: 11 }),
    // Reviews: 4 (google 5 and 3, trustpilot 4 and unrated): average (5 + 3 + 4) / 3 = 4; review 1 replied twice
    // (counts once) and review 3 once: 2 replied, 50 per 100.
    ev('review_received', 'review', 1, '10T09:00', { channel: 'google', rating: 5 }),
    ev('review_received', 'review', 2, '10T10:00', { channel: 'google', rating: 3 }),
    ev('review_received', 'review', 3, '11T09:00', { channel: 'trustpilot', rating: 4 }),
    ev('review_received', 'review', 4, '11T10:00', { channel: 'trustpilot', rating: null }),
    ev('review_replied', 'review', 1, '10T12:00', { sourceKind: 'google', posted: true }, agentId),
    ev('review_replied', 'review', 1, '10T13:00', { sourceKind: 'google', posted: true }, agentId),
    ev('review_replied', 'review', 3, '11T12:00', { sourceKind: 'trustpilot', posted: true }, agentId),
    // Surveys: NPS survey 21 rated 10, 9, 6, 8 and one unanswered (promoters 2 − detractors 1 of 4 = 25); CSAT survey
    // 22 rated 5 and 3 (50 %); CES survey 23 rated 2 and 4 (3). 9 responses.
    ...[10, 9, 6, 8, null].map((rating, i) =>
      ev('survey_received', 'survey_response', 100 + i, '10T09:00', { surveyId: 21, kind: 'nps', rating, channel: 'web' }),
    ),
    ...[5, 3].map((rating, i) => ev('survey_received', 'survey_response', 200 + i, '11T09:00', { surveyId: 22, kind: 'csat', rating, channel: 'email' })),
    ...[2, 4].map((rating, i) => ev('survey_received', 'survey_response', 300 + i, '11T10:00', { surveyId: 23, kind: 'ces', rating, channel: 'in_app' })),
    // Forms: form 31 seen 4 times and sent once, form 32 seen once and sent once: 5 views, 2 submissions, 40 %.
    ...[1, 2, 3, 4].map((i) => ev('form_viewed', 'form', 31, `10T0${i}:00`, { formId: 31 })),
    ev('form_viewed', 'form', 32, '11T09:00', { formId: 32 }),
    ev('form_submitted', 'form_response', 1, '10T05:00', { formId: 31 }),
    ev('form_submitted', 'form_response', 2, '11T09:05', { formId: 32 }),
    // Articles: 41 read 3 times, 42 once; votes: 41 helpful, 41 not helpful then changed to helpful, 42 not helpful:
    // helpful 2, not helpful 1, 3 votes (a changed vote is not a new one): 66.67 %.
    ...['10T09:00', '10T10:00', '11T09:00'].map((at) => ev('kb_article_viewed', 'kb_article', 41, at, { articleId: 41, knowledgeBaseId: 1 })),
    ev('kb_article_viewed', 'kb_article', 42, '11T09:00', { articleId: 42, knowledgeBaseId: 1 }),
    ev('kb_article_rated', 'kb_article', 41, '10T09:05', { articleId: 41, knowledgeBaseId: 1, helpful: true, previous: null }),
    ev('kb_article_rated', 'kb_article', 41, '10T10:05', { articleId: 41, knowledgeBaseId: 1, helpful: false, previous: null }),
    ev('kb_article_rated', 'kb_article', 41, '10T10:06', { articleId: 41, knowledgeBaseId: 1, helpful: true, previous: false }),
    ev('kb_article_rated', 'kb_article', 42, '11T09:05', { articleId: 42, knowledgeBaseId: 1, helpful: false, previous: null }),
    // Searches: "Refund" (3 results, opened), "refnd" (none) typed on into "refund policy" (2), "shipping" (none):
    // 3 searches, 1 without a result, 1 opened.
    ev('kb_searched', 'kb_search', 1, '10T09:00', { searchId: 1, knowledgeBaseId: 1, query: 'Refund', resultCount: 3 }),
    ev('kb_search_clicked', 'kb_search', 1, '10T09:01', { searchId: 1, knowledgeBaseId: 1, query: 'Refund', articleId: 41 }),
    // The visitor of search 1 started a conversation 10 minutes later (ADR 120): 1 of 3 searches ended in one.
    ev('kb_search_converted', 'kb_search', 1, '10T09:10', { searchId: 1, knowledgeBaseId: 1, query: 'Refund', conversationId: 5, visitorId: 'v1' }),
    ev('kb_searched', 'kb_search', 2, '10T10:00', { searchId: 2, knowledgeBaseId: 1, query: 'refnd', resultCount: 0 }),
    ev('kb_searched', 'kb_search', 2, '10T10:00', {
      searchId: 2,
      knowledgeBaseId: 1,
      query: 'refund policy',
      resultCount: 2,
      previousQuery: 'refnd',
      previousResultCount: 0,
    }),
    ev('kb_searched', 'kb_search', 3, '11T09:00', { searchId: 3, knowledgeBaseId: 1, query: 'shipping', resultCount: 0 }),
  ];
  const rows = await writeHistory(accountId, events);
  return {
    eventIds: rows.map((r) => r.id),
    expected: {
      contacts: { 'New contacts': 3, 'Conversations from returning contacts': 1 },
      visitors: { Visits: 3, 'Page views': 4, 'Pages per visit': 4 / 3 },
      meetings: { 'Meetings booked': 3, 'Meetings cancelled': 1, 'Cancelled per 100 booked': 100 / 3 },
      reviews: { Reviews: 4, 'Average rating': 4, Replied: 2, 'Reply rate': 50 },
      surveys: { Responses: 9, NPS: 25, CSAT: 50, 'Average CES': 3 },
      forms: { Views: 5, Submissions: 2, 'Conversion rate': 40 },
      articles: { 'Article views': 4, 'Helpful votes': 2, 'Not helpful votes': 1, 'Helpful share': 200 / 3 },
      searches: {
        Searches: 3,
        'Searches without a result': 1,
        'Share without a result': 100 / 3,
        'Searches with a result opened': 1,
        'Searches that ended in a conversation': 1,
        'Share ended in a conversation': 100 / 3,
      },
    },
  };
}
