/** Plain values of the forms beside them (schemas.ts), apart from the zod schemas so that screens can use them without shipping zod (ADR 027). */
/** Avatars: JPEG or PNG (checked on the real bytes by the server), at most 1 MB. */
export const MAX_AVATAR_BYTES = 1024 * 1024;

export const AVATAR_TYPES = ['image/jpeg', 'image/png'] as const;

export const AVATAR_TYPE_MESSAGE = 'Only JPEG and PNG images are allowed';

export const AVATAR_SIZE_MESSAGE = 'Image must be at most 1 MB';

export const NOTIFICATION_PREFERENCE_LABELS = {
  emailOnAssignment: 'Email me when a conversation is assigned to me or my team',
  emailOnMention: 'Email me when someone mentions me',
  emailOnCustomerMessage: 'Email me when a customer writes in one of my conversations',
  emailOnSla: 'Email me when one of my conversations is about to breach or breaches its SLA',
  emailOnNewConversation: 'Email me about every new conversation',
  browserPush: 'Browser push notifications',
} as const;

/** What a user who never saved the page gets (and what keys added later read as). */
export const DEFAULT_NOTIFICATION_PREFERENCES = {
  emailOnAssignment: true,
  emailOnMention: true,
  emailOnCustomerMessage: true,
  emailOnSla: true,
  emailOnNewConversation: false,
  browserPush: false,
};

export function readNotificationPreferences(stored: Partial<Record<keyof typeof DEFAULT_NOTIFICATION_PREFERENCES, boolean>> | null | undefined) {
  return { ...DEFAULT_NOTIFICATION_PREFERENCES, ...(stored ?? {}) };
}

export const USER_EXISTS_MESSAGE = 'A user with this email already exists';

export const USERS_PAGE_SIZE = 50;
