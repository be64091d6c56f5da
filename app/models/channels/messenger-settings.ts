import { z } from 'zod';
import { phoneSchema } from '../../utils/phone-schema';
import { MAX_ROW_ID } from '../../utils/route-id';
import { BrandColour, BRAND_COLOUR_NAMES, FONTS, POSITIONS } from './messenger-constants';
export * from './messenger-constants';

const maxLengthMessage = (n: number) => `Length must be less than or equal to ${n} characters`;
const emptyMessage = (label: string) => `${label} is not allowed to be empty`;
const text = (label: string, max: number) =>
  z
    .string({ error: emptyMessage(label) })
    .trim()
    .min(1, emptyMessage(label))
    .max(max, maxLengthMessage(max));
const optionalText = (max: number) => z.string().trim().max(max, maxLengthMessage(max)).default('');

export const AppearanceSchema = z.object({
  brandColor: z.enum(BRAND_COLOUR_NAMES as [BrandColour, ...BrandColour[]], { error: 'Choose a brand colour' }),
  position: z.enum(POSITIONS, { error: 'Choose a position' }),
  font: z.enum(FONTS, { error: 'Choose a font' }),
  fontSize: z.enum(['16', '13', '20'], { error: 'Choose a font size' }),
  greeting: text('Greeting', 120),
});

export const ConfigureSchema = z.object({
  teamName: text('Team name', 40),
  welcomeMessage: optionalText(300),
  showLauncher: z.boolean().default(false),
  /** Page views reach the CRM's live view and the automation engine's page-URL conditions. */
  trackPageViews: z.boolean().default(false),
  /** The knowledge base the widget searches before a chat starts (issue 13); none = no search box. */
  helpCentreId: z.coerce.number().int().positive().max(MAX_ROW_ID).optional(),
});

export const AdvancedSchema = z.object({
  /** Identity verification: only visitors whose user hash checks out may claim a site user id. */
  requireIdentity: z.boolean().default(false),
  /** Host names allowed to load the widget, one per line; empty = any site. */
  allowedDomains: z
    .string()
    .trim()
    .max(2000, maxLengthMessage(2000))
    .default('')
    .refine(
      (v) =>
        v
          .split(/\s+/)
          .filter(Boolean)
          .every((d) => /^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d+)?$/i.test(d)),
      'Enter host names such as example.com, one per line',
    ),
  attachments: z.boolean().default(false),
});

/** Section 3 "Chat-widget form flags", plus the offline message and the business hours the widget follows. */
export const OfflineSchema = z.object({
  offlineMessage: text('Offline message', 300),
  businessHoursId: z.coerce.number().int().positive().max(MAX_ROW_ID).optional(),
  isEmail: z.boolean().default(false),
  isName: z.boolean().default(false),
  isNumber: z.boolean().default(false),
  isSubject: z.boolean().default(false),
  isMessage: z.boolean().default(false),
  isAttachment: z.boolean().default(false),
  isCaptcha: z.boolean().default(false),
  submitButton: text('Submit button', 20),
  submitMessage: text('Submit message', 200),
  ticketHeading: text('Ticket heading', 60),
});

export const ChatPageSchema = z.object({
  enabled: z.boolean().default(false),
  heading: text('Heading', 60),
  subHeading: optionalText(200),
});

export type Appearance = z.infer<typeof AppearanceSchema>;
export type Configure = z.infer<typeof ConfigureSchema>;
export type Advanced = z.infer<typeof AdvancedSchema>;
export type Offline = z.infer<typeof OfflineSchema>;
export type ChatPage = z.infer<typeof ChatPageSchema> & { code?: string };
export type MessengerSettings = { appearance: Appearance; configure: Configure; advanced: Advanced; offline: Offline; chatPage: ChatPage };
export type MessengerSection = keyof MessengerSettings;

export const MESSENGER_DEFAULTS: MessengerSettings = {
  appearance: { brandColor: 'blue', position: 'right', font: 'Arial', fontSize: '16', greeting: 'Hi there 👋 How can we help?' },
  configure: { teamName: 'Support', welcomeMessage: 'We usually reply in a few minutes.', showLauncher: true, trackPageViews: true },
  advanced: { requireIdentity: false, allowedDomains: '', attachments: true },
  offline: {
    offlineMessage: 'We are away right now. Leave us a message and we will get back to you by email.',
    businessHoursId: undefined,
    // Section 9's contact-form defaults: email, name, message and subject on; phone, captcha and attachments off.
    isEmail: true,
    isName: true,
    isNumber: false,
    isSubject: true,
    isMessage: true,
    isAttachment: false,
    isCaptcha: false,
    submitButton: 'Send',
    submitMessage: 'Thanks! We received your message and will reply by email.',
    ticketHeading: 'Leave us a message',
  },
  chatPage: { enabled: false, heading: 'Chat with us', subHeading: '' },
};

const SECTION_SCHEMAS = {
  appearance: AppearanceSchema,
  configure: ConfigureSchema,
  advanced: AdvancedSchema,
  offline: OfflineSchema,
  chatPage: ChatPageSchema,
} as const;

/** The settings of an inbox with defaults for anything missing or no longer valid (an old or hand-edited row). */
export function readMessengerSettings(raw: Record<string, unknown> | null | undefined): MessengerSettings {
  const out = {} as Record<MessengerSection, unknown>;
  for (const key of Object.keys(SECTION_SCHEMAS) as MessengerSection[]) {
    const stored = raw && typeof raw[key] === 'object' && raw[key] ? (raw[key] as Record<string, unknown>) : {};
    const merged = { ...MESSENGER_DEFAULTS[key], ...stored };
    const parsed = SECTION_SCHEMAS[key].safeParse(merged);
    out[key] = parsed.success
      ? { ...parsed.data, ...(key === 'chatPage' && typeof stored.code === 'string' ? { code: stored.code } : {}) }
      : MESSENGER_DEFAULTS[key];
  }
  return out as MessengerSettings;
}

/** Host names of the allowed-domains box. */
export function allowedHosts(advanced: Advanced) {
  return advanced.allowedDomains
    .split(/\s+/)
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean);
}

/** Whether a page origin may load the widget ("*.example.com" allows subdomains). */
export function isHostAllowed(advanced: Advanced, origin: string | null) {
  const hosts = allowedHosts(advanced);
  if (hosts.length === 0) return true;
  if (!origin) return false;
  let host: string;
  try {
    host = new URL(origin).host.toLowerCase();
  } catch {
    return false;
  }
  return hosts.some((h) => (h.startsWith('*.') ? host.endsWith(h.slice(1)) : host === h));
}

/** The visitor's ticket form when agents are offline (flags of section 3), as a zod schema. */
export function offlineTicketSchema(offline: Offline) {
  return z.object({
    name: offline.isName ? text('Name', 80) : z.string().trim().max(80).optional(),
    email: offline.isEmail
      ? z.email({ error: 'Enter a valid email address' }).max(200)
      : z.union([z.literal(''), z.email({ error: 'Enter a valid email address' })]).optional(),
    phone: offline.isNumber
      ? z
          .string({ error: 'PhoneNo is required' })
          .trim()
          .min(1, 'PhoneNo is required')
          .pipe(
            phoneSchema({
              min: 4,
              max: 14,
              invalid: 'Enter a valid phone number',
              tooShort: 'Enter a valid phone number',
              tooLong: 'Length must be less than or equal to 14 characters',
            }).unwrap(),
          )
      : z.string().trim().max(20).optional(),
    subject: offline.isSubject ? text('Subject', 200) : z.string().trim().max(200).optional(),
    message: offline.isMessage ? text('Message', 5000) : z.string().trim().max(5000).optional(),
  });
}

/** The chat page's form: who they are with the first message (the reply can then also go by email), then text only. */
export function chatPageMessageSchema(opts: { first: boolean }) {
  return z.object({
    name: opts.first ? text('Name', 80) : z.string().optional(),
    email: opts.first ? z.email({ error: 'Enter a valid email address' }).max(200) : z.string().optional(),
    message: text('Message', 5000),
  });
}

/** Settings → Channels → Chat Messenger: a new messenger inbox. */
export const MessengerInboxSchema = z.object({
  name: z.string({ error: 'Name is not allowed to be empty' }).trim().min(2, 'Length must be at least 2 characters').max(40, maxLengthMessage(40)),
});

/** Renaming a messenger inbox: the same name rule as creating one. */
export const RenameMessengerInboxSchema = MessengerInboxSchema.extend({ inboxId: z.coerce.number().int().positive() });
