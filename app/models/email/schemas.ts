import { z } from 'zod';
import { EmailSchema } from '../accounts/schemas';
import { INBOX_NAME_MAX, EMAIL_MODES, MAIL_SECURITY, TRUSTED_DOMAIN_NAME_MAX, TRUSTED_DOMAIN_URL_MAX, TRUSTED_DOMAIN_URL_MESSAGE, TRUSTED_DOMAIN_URL_EMPTY_MESSAGE } from './form-constants';
export * from './form-constants';

/** The generic messages of section 5 ("Others" and the "is not allowed to be empty" wording). */
const maxLengthMessage = (n: number) => `Length must be less than or equal to ${n} characters`;
const emptyMessage = (label: string) => `${label} is not allowed to be empty`;

function requiredText(label: string, max: number) {
  return z
    .string({ error: emptyMessage(label) })
    .trim()
    .min(1, emptyMessage(label))
    .max(max, maxLengthMessage(max));
}

export const EmailInboxSchema = z.object({
  name: requiredText('Inbox Name', INBOX_NAME_MAX),
  email: EmailSchema,
  mode: z.enum(EMAIL_MODES, { error: 'Choose how mail reaches Parley' }).default('forwarding'),
});
export type EmailInboxInput = z.infer<typeof EmailInboxSchema>;

const HOST = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i;

const HostSchema = z
  .string({ error: emptyMessage('Host') })
  .trim()
  .min(1, emptyMessage('Host'))
  .max(253, maxLengthMessage(253))
  .regex(HOST, 'Enter a valid host name')
  .transform((h) => h.toLowerCase());

const portSchema = (fallback: number) =>
  z.coerce
    .number({ error: 'Port must be a number' })
    .int('Port must be a whole number')
    .min(1, 'Port must be between 1 and 65535')
    .max(65535, 'Port must be between 1 and 65535')
    .default(fallback);

/** A checkbox: present means on. */
const CheckboxSchema = z
  .union([z.literal('on'), z.literal('true'), z.boolean()])
  .optional()
  .transform((v) => v === 'on' || v === 'true' || v === true);

/** Passwords are never shown back: an empty field keeps the stored one. */
const SecretSchema = z.string().max(500, maxLengthMessage(500)).optional();

/** The select wins; forms and API callers that only send the older `secure` checkbox still work. */
const SecuritySchema = z.enum(MAIL_SECURITY, { error: 'Choose how the connection is protected' }).optional();

/** A SHA-256 fingerprint as shown on the page (colons and case do not matter). */
export const FingerprintSchema = z
  .string({ error: 'Fingerprint is not allowed to be empty' })
  .trim()
  .regex(/^([0-9a-f]{2}:?){31}[0-9a-f]{2}$/i, 'Enter the SHA-256 fingerprint shown above');
/** The "trust this certificate" form of the IMAP and SMTP settings. */
export const TrustFingerprintSchema = z.object({ fingerprint: FingerprintSchema });

export const ImapSettingsSchema = z.object({
  host: HostSchema,
  port: portSchema(993),
  secure: CheckboxSchema,
  security: SecuritySchema,
  user: requiredText('User name', 254),
  password: SecretSchema,
  mailbox: z.string().trim().max(200, maxLengthMessage(200)).optional().transform((m) => m || 'INBOX'),
});
export type ImapSettingsInput = z.infer<typeof ImapSettingsSchema>;

export const SmtpSettingsSchema = z.object({
  host: HostSchema,
  port: portSchema(587),
  secure: CheckboxSchema,
  security: SecuritySchema,
  // Empty for a relay that does not authenticate (it trusts Parley's address instead).
  user: z.string().trim().max(254, maxLengthMessage(254)).optional().transform((u) => u || ''),
  password: SecretSchema,
});
export type SmtpSettingsInput = z.infer<typeof SmtpSettingsSchema>;

const URL_PATTERN = /^(?:(?:https?|ftp):\/\/)?([^\s/:?#@]+)(?::(\d{1,5}))?(?:[/?#]\S*)?$/i;
const DOMAIN_LABELS = /^(?=.{1,253}$)([a-z0-9\u00a1-\uffff]([a-z0-9\u00a1-\uffff-]{0,61}[a-z0-9\u00a1-\uffff])?\.)+[a-z\u00a1-\uffff]{2,63}\.?$/i;

function isPrivateOrLocalIPv4(octets: number[]) {
  const [a, b] = octets;
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127) ||
    a >= 224
  );
}

/**
 * The host a trusted-domain URL names, or null when it is not a valid public URL: a domain with a top-level
 * domain or a public IPv4 address, an optional port (1–65535) and path. `www.` is dropped, so that mail from
 * example.com matches a domain entered as www.example.com.
 */
export function trustedDomainHost(value: string): string | null {
  const m = URL_PATTERN.exec(value.trim());
  if (!m) return null;
  const host = m[1].toLowerCase().replace(/\.$/, '');
  if (m[2] !== undefined) {
    const port = Number(m[2]);
    if (port < 1 || port > 65535) return null;
  }
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(host)) {
    const octets = host.split('.').map(Number);
    if (octets.some((o) => o > 255) || isPrivateOrLocalIPv4(octets)) return null;
    return host;
  }
  if (!DOMAIN_LABELS.test(host) || /^\d+(\.\d+)*$/.test(host)) return null;
  return host.replace(/^www\./, '');
}

export const TrustedDomainSchema = z.object({
  domainName: requiredText('Domain Name', TRUSTED_DOMAIN_NAME_MAX),
  domainUrl: z
    .string({ error: TRUSTED_DOMAIN_URL_EMPTY_MESSAGE })
    .trim()
    .min(1, { error: TRUSTED_DOMAIN_URL_EMPTY_MESSAGE, abort: true })
    .max(TRUSTED_DOMAIN_URL_MAX, maxLengthMessage(TRUSTED_DOMAIN_URL_MAX))
    .refine((v) => trustedDomainHost(v) !== null, TRUSTED_DOMAIN_URL_MESSAGE),
});
export type TrustedDomainInput = z.infer<typeof TrustedDomainSchema>;
