import type { Tx } from '../../../db/client';
import { emitEvent } from './events.server';

/**
 * The events of surveys and reviews, defined before those areas exist: the survey and review features call these
 * inside the transaction that stores a response or a review, and the engine's rules react to them.
 */
export type SurveyReceived = {
  accountId: number;
  responseId: number | string;
  surveyId: number | string;
  /** 'nps' | 'csat' | 'ces' */
  kind: string;
  /** How it came: in_app, email, web (an inbox rule's source type). */
  channel: string;
  rating: number | null;
  comment?: string | null;
  contactId?: number | null;
  /** The conversation the survey asked about (a CSAT after a chat), if any. */
  conversationId?: number | null;
  inboxId?: number | null;
};

export function emitSurveyReceived(tx: Tx, s: SurveyReceived) {
  return emitEvent(tx, {
    accountId: s.accountId,
    type: 'survey_received',
    subjectType: 'survey_response',
    subjectId: s.responseId,
    payload: {
      surveyId: s.surveyId,
      kind: s.kind,
      channel: s.channel,
      rating: s.rating,
      comment: s.comment ?? null,
      contactId: s.contactId ?? null,
      conversationId: s.conversationId ?? null,
      inboxId: s.inboxId ?? null,
    },
    actor: s.contactId ? { type: 'contact', id: s.contactId } : { type: 'system' },
  });
}

export type ReviewReceived = {
  accountId: number;
  reviewId: number | string;
  /** Where it was left: google, facebook, trustpilot, web… (an inbox rule's source type). */
  source: string;
  rating: number | null;
  text?: string | null;
  contactId?: number | null;
};

export function emitReviewReceived(tx: Tx, r: ReviewReceived) {
  return emitEvent(tx, {
    accountId: r.accountId,
    type: 'review_received',
    subjectType: 'review',
    subjectId: r.reviewId,
    payload: {
      channel: r.source,
      rating: r.rating,
      text: r.text ?? null,
      contactId: r.contactId ?? null,
    },
    actor: r.contactId ? { type: 'contact', id: r.contactId } : { type: 'system' },
  });
}
