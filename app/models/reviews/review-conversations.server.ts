import { and, eq, isNull } from 'drizzle-orm';
import { getDb, schema, type Tx } from '../../../db/client';
import type { Cause } from '../events/events.server';
import { findLinkedConversationId, findOrOpenLinkedConversation, NoLinkedConversation } from '../inbox/linked-conversations.server';
import { SOURCE_KIND_LABELS, type ReviewSourceKind } from './constants';

const rv = schema.reviews;
const s = schema.reviewSources;

/** Five stars drawn as text: what the thread and the subject show of a rating. */
export const starsText = (rating: number) => '★'.repeat(Math.max(0, Math.min(5, rating))) + '☆'.repeat(Math.max(0, 5 - rating));

/**
 * The reviewer as a contact (ADR 149): the review's contact when it has one (a Parley page review with an email),
 * else the contact known on this source by the reviewer's public name (a contact identity `review`,
 * `{source id}:{name}`), made on first need. A review without a name is its own anonymous reviewer.
 */
function reviewerOf(review: typeof rv.$inferSelect, source: typeof s.$inferSelect) {
  if (review.contactId) return { id: review.contactId };
  const name = review.reviewerName.trim();
  return {
    name: name || 'Anonymous reviewer',
    identity: { channel: 'review', externalId: name ? `${source.id}:${name.toLowerCase()}` : `${source.id}:review-${review.id}` },
  };
}

/**
 * The review's conversation, opened on first need (a workflow's action on review_received, ADR 149): an internal
 * ticket in the account's inbox whose first message, from the reviewer, shows the rating and the text and links
 * back to the review. The reviewer becomes the review's contact. NoLinkedConversation when the review is gone.
 */
export async function findOrOpenReviewConversation(tx: Tx, opts: { accountId: number; reviewId: number; cause?: Cause }) {
  const [row] = await tx
    .select({ review: rv, source: s })
    .from(rv)
    .innerJoin(s, and(eq(s.id, rv.sourceId), eq(s.accountId, opts.accountId)))
    .where(and(eq(rv.accountId, opts.accountId), eq(rv.id, opts.reviewId)));
  if (!row) throw new NoLinkedConversation('the review no longer exists');
  const { review, source } = row;
  const where = `${source.name} (${SOURCE_KIND_LABELS[source.kind as ReviewSourceKind] ?? source.kind})`;
  const text = [
    `${starsText(review.rating)} ${review.rating} of 5 on ${where}`,
    '',
    review.text || '(Only a rating, no text.)',
    '',
    `Reply to the review: /reviews/${review.id}`,
  ].join('\n');
  const linked = await findOrOpenLinkedConversation(tx, {
    accountId: opts.accountId,
    key: `review:${review.id}`,
    subject: `${review.rating}★ review on ${source.name}`,
    text,
    contact: reviewerOf(review, source),
    cause: opts.cause,
  });
  if (linked.opened && !review.contactId && linked.contactId)
    await tx
      .update(rv)
      .set({ contactId: linked.contactId })
      .where(and(eq(rv.accountId, opts.accountId), eq(rv.id, review.id), isNull(rv.contactId)));
  return linked;
}

/** The review's conversation, if a workflow opened one: the review screen links to it. */
export function findReviewConversationId(opts: { accountId: number; reviewId: number }) {
  return findLinkedConversationId(getDb(), { accountId: opts.accountId, key: `review:${opts.reviewId}` });
}

export { NoLinkedConversation };
