/** Plain values of the forms beside them (schemas.ts), apart from the zod schemas so that screens can use them without shipping zod (ADR 027). */
// ---------------------------------------------------------------------------------------------------------
// Email inboxes (Settings → Channels → emails)

export const INBOX_NAME_MAX = 20;

export const INBOX_NAME_TAKEN_MESSAGE = 'An inbox with this name already exists';

export const EMAIL_MODES = ['forwarding', 'imap', 'http'] as const;

export type EmailMode = (typeof EMAIL_MODES)[number];

export const EMAIL_MODE_LABELS: Record<EmailMode, string> = {
  forwarding: 'Forwarding (Parley receives the mail your address forwards)',
  imap: 'IMAP (Parley reads the mailbox)',
  http: 'HTTP (your mail service posts raw messages)',
};

/** How a connection to a mail server is protected: TLS from the first byte, an upgrade with STARTTLS, or none. */
export const MAIL_SECURITY = ['tls', 'starttls', 'none'] as const;

export type MailSecurity = (typeof MAIL_SECURITY)[number];

export const MAIL_SECURITY_LABELS: Record<MailSecurity, string> = {
  tls: 'TLS (usually port 993 for IMAP, 465 for SMTP)',
  starttls: 'STARTTLS (usually port 143 for IMAP, 587 for SMTP)',
  none: 'None: plain text, never upgraded (only on a private network)',
};

export const PASSWORD_REQUIRED_MESSAGE = 'Password is not allowed to be empty';

// ---------------------------------------------------------------------------------------------------------
// Trusted domains (section 5: domainName at most 15; domainUrl a URL with optional scheme, no private or
// local IP ranges, optional port and path; the input caps at 60)

export const TRUSTED_DOMAIN_NAME_MAX = 15;

export const TRUSTED_DOMAIN_URL_MAX = 60;

export const TRUSTED_DOMAIN_URL_MESSAGE = 'Enter a valid URL';

export const TRUSTED_DOMAIN_URL_EMPTY_MESSAGE = 'Domain URL is not allowed to be empty';

export const TRUSTED_DOMAIN_TAKEN_MESSAGE = 'This domain is already trusted';
