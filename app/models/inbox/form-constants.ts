/** Messages and choices of the inbox forms, apart from their zod schemas (forms.ts) so that screens need no zod. */
export const MESSAGE_REQUIRED = 'Message is required';
export const MESSAGE_MAX = 20_000;
export const SUBJECT_REQUIRED = 'Subject is required';
export const INBOX_REQUIRED = 'Inbox must be specified';
export const SELECT_CONVERSATIONS = 'Select at least one conversation';
export const MERGE_NEEDS_TWO = 'Choose at least two conversations to merge';
export const SNOOZE_TIME_REQUIRED = 'Choose a date and time';
export const SNOOZE_IN_FUTURE = 'Choose a time in the future';
export const INVALID_EMAIL = 'Enter a valid email address';
export const STATUS_CHOICES = ['open', 'pending', 'resolved'] as const;

/** The reply box: an email reply (with cc and bcc) or a private note, told apart by the submit button. */
export const REPLY_INTENTS = ['reply', 'reply-resolve', 'reply-pending', 'note'] as const;

/** What "Send and resolve" and "Send and set pending" leave the conversation as (ADR 035). */
export const STATUS_AFTER_REPLY = { 'reply-resolve': 'resolved', 'reply-pending': 'pending' } as const;

/** Mass actions on a selection of the list: ids ticked (or comma-joined), then the field of the chosen action. */
export const MASS_INTENTS = ['assign', 'status', 'priority', 'tag', 'move', 'delete'] as const;

export type MassIntent = (typeof MASS_INTENTS)[number];

/** The channels a conversation can be started on from a contact (issue 39): SMS and chat. */
export const START_CHANNELS = ['sms', 'chat'] as const;
export type StartChannel = (typeof START_CHANNELS)[number];
