/** Every domain event type Parley writes. Later areas add theirs here. */
export const DOMAIN_EVENT_TYPES = [
  'account_created',
  'account_updated',
  'user_signed_up',
  'user_invited',
  'user_activated',
  'user_updated',
  'user_deleted',
  'user_access_changed',
  'role_created',
  'role_updated',
  'role_deleted',
  'team_created',
  'team_updated',
  'team_deleted',
  'plan_changed',
  'conversation_created',
  'contact_created',
  'survey_received',
  'review_received',
] as const;

export type DomainEventType = (typeof DOMAIN_EVENT_TYPES)[number];
