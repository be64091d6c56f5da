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
