/**
 * The inbox's value lists, apart from the tables so that screens can import them without bringing the ORM into
 * the browser's bundle. db/schema/inbox.ts re-exports them.
 */
export const CHANNEL_TYPES = ['email', 'web', 'sms', 'contact_form', 'internal', 'facebook', 'twitter', 'google_business'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** Section 3: conversation source types. */
export const SOURCE_TYPES = [
  'email',
  'web',
  'sms',
  'custom_sms',
  'twilio',
  'support_form',
  'support_widget',
  'internal_ticket',
  'helpdesk',
  'google_business_message',
  // Not in section 3's list: the social channels of issue 4 (ADR 020).
  'facebook',
  'twitter',
] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

export const CONVERSATION_STATUSES = ['open', 'pending', 'snoozed', 'resolved'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

/** Section 3 "Priority options", stored as a rank so that sorting by priority uses an index. */
export const PRIORITIES = ['default', 'low', 'medium', 'high', 'critical'] as const;
export type Priority = (typeof PRIORITIES)[number];
