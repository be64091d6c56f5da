import type { DomainEventType } from '../events/types';

/** Outgoing webhooks (ADR 077), free of server code so that the settings screen can list them. */

/** The domain events an account may subscribe to; their payload `type` is the dotted name (conversation.created). */
export const WEBHOOK_EVENT_TYPES = [
  'conversation_created',
  'conversation_updated',
  'conversation_assigned',
  'conversation_deleted',
  'message_created',
  'message_updated',
  'message_deleted',
  'contact_created',
  'contact_updated',
  'contact_deleted',
  'company_created',
  'company_updated',
  'company_deleted',
  'tag_created',
  'tag_updated',
  'tag_deleted',
  'survey_received',
  'review_received',
  'form_submitted',
  'meeting_booked',
  'meeting_cancelled',
] as const satisfies readonly DomainEventType[];
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const dottedType = (t: string) => t.replace(/_(?=[a-z]+$)/, '.');

/** Automatic attempts before a delivery is dead: 1 + 7 retries, 30 s doubling (30 s, 1 min ... 32 min; ~1 h in all). */
export const WEBHOOK_MAX_ATTEMPTS = 8;
export const WEBHOOK_FIRST_RETRY_SECONDS = 30;
/** After a rotation the previous secret signs alongside the new one for this long. */
export const WEBHOOK_ROTATION_HOURS = 24;
/** Request and response bodies kept in the delivery log. */
export const WEBHOOK_LOG_BYTES = 4096;
export const WEBHOOK_TIMEOUT_MS = 10_000;
