/** Section 5 "Campaign template": name and subject required, trimmed, at most 30 each. */
export const TEMPLATE_NAME_MAX = 30;
export const TEMPLATE_SUBJECT_MAX = 30;
export const TEMPLATE_BODY_MAX = 200_000;
export const CAMPAIGN_NAME_MAX = 60;
export const CAMPAIGN_SUBJECT_MAX = 150;

export const CAMPAIGN_KINDS = ['message', 'email', 'sms', 'push'] as const;
export type CampaignKind = (typeof CAMPAIGN_KINDS)[number];
export const KIND_LABELS: Record<CampaignKind, string> = { message: 'Message', email: 'Email', sms: 'SMS', push: 'Push' };

export const CAMPAIGN_STATUSES = ['draft', 'scheduled', 'sending', 'paused', 'sent', 'cancelled'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export const STATUS_LABELS: Record<CampaignStatus, string> = {
  draft: 'Draft',
  scheduled: 'Scheduled',
  sending: 'Sending',
  paused: 'Paused',
  sent: 'Sent',
  cancelled: 'Cancelled',
};

/**
 * The status changes a person may make (ADR 064). `sending → sent` is the sender's own, never a person's.
 * schedule: draft → scheduled (or straight to sending when "send now"); pause/resume only while sending;
 * cancel anything not yet finished; unschedule back to draft before it starts.
 */
export const TRANSITIONS = {
  schedule: ['draft'],
  unschedule: ['scheduled'],
  pause: ['sending'],
  resume: ['paused'],
  cancel: ['draft', 'scheduled', 'paused', 'sending'],
} as const satisfies Record<string, readonly CampaignStatus[]>;
export type CampaignTransition = keyof typeof TRANSITIONS;

/** Only a campaign that has not started can be edited. */
export const EDITABLE_STATUSES: readonly CampaignStatus[] = ['draft', 'scheduled'];

export const CAMPAIGN_TOASTS = {
  created: 'Campaign Created',
  updated: 'Campaign Updated',
  deleted: 'Campaign Deleted',
  scheduled: 'Campaign Scheduled',
  started: 'Campaign Sending',
  paused: 'Campaign Paused',
  resumed: 'Campaign Resumed',
  cancelled: 'Campaign Cancelled',
  unscheduled: 'Campaign Unscheduled',
  testSent: 'Email Sent',
} as const;

export const TEMPLATE_TOASTS = {
  created: 'Campaign Template Created',
  updated: 'Campaign Template Updated',
  deleted: 'Campaign Template Deleted',
} as const;

export const TEMPLATE_NAME_TAKEN_MESSAGE = 'A campaign template with this name already exists';

/** Message (in-product chat) campaigns (ADR 082): limits and choices, here so that the editor ships no zod. */
export const CHAT_MESSAGE_MAX = 1000;
export const CHAT_DELAY_MAX = 3600;
export const PAGE_MATCHES = ['contain', 'exact', 'start', 'end'] as const;
export const CHAT_VISITORS = ['any', 'new', 'returning'] as const;

/** The kinds with a list route of their own (section 2: campaigns/message, campaigns/email, campaigns/sms). */
export const LISTED_KINDS = ['message', 'email', 'sms'] as const;
export type ListedKind = (typeof LISTED_KINDS)[number];
export const LIST_TITLES: Record<ListedKind, string> = { message: 'Message campaigns', email: 'Email campaigns', sms: 'SMS campaigns' };

export function isListedKind(kind: unknown): kind is ListedKind {
  return (LISTED_KINDS as readonly unknown[]).includes(kind);
}

/** Where a campaign of this kind is listed: its kind's list, or all campaigns for a kind without one (push). */
export function campaignListPath(kind?: CampaignKind | null) {
  return kind && isListedKind(kind) ? `/campaigns/${kind}` : '/campaigns';
}
