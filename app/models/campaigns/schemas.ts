import { z } from 'zod';
import { emptyMessage, maxLengthMessage } from '../productivity/constants';
import { isTimeZone } from '../accounts/schemas';
import { DESIGN_LIMITS } from './design';
import { SMS_BODY_MAX } from './sms';
import { CAMPAIGN_NAME_MAX, CAMPAIGN_SUBJECT_MAX, CHAT_DELAY_MAX, CHAT_MESSAGE_MAX, CHAT_VISITORS, PAGE_MATCHES, TEMPLATE_BODY_MAX, TEMPLATE_NAME_MAX, TEMPLATE_SUBJECT_MAX } from './constants';

function requiredText(label: string, max: number) {
  return z
    .string({ error: emptyMessage(label) })
    .trim()
    .min(1, emptyMessage(label))
    .max(max, maxLengthMessage(max));
}

/** Section 3 and 5 "Campaign template". bodyText is derived from bodyHtml on the server; textDesign is the designer's. */
export const CampaignTemplateSchema = z.object({
  name: requiredText('Name', TEMPLATE_NAME_MAX),
  subject: requiredText('Subject', TEMPLATE_SUBJECT_MAX),
  bodyHtml: z.string().max(TEMPLATE_BODY_MAX, maxLengthMessage(TEMPLATE_BODY_MAX)).optional(),
  textDesign: z.string().max(TEMPLATE_BODY_MAX, maxLengthMessage(TEMPLATE_BODY_MAX)).optional(),
});
export type CampaignTemplateInput = z.infer<typeof CampaignTemplateSchema>;

const idField = (message: string) =>
  z
    .string({ error: message })
    .trim()
    .regex(/^\d{1,9}$/, message)
    .transform(Number);

/** A local date-time as the browser's datetime-local input sends it: 2026-11-25T18:30. */
const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;

export const EmailCampaignSchema = z
  .object({
    name: requiredText('Name', CAMPAIGN_NAME_MAX),
    segmentId: idField('Segment must be specified'),
    inboxId: idField('Sender must be specified'),
    templateId: z
      .string()
      .trim()
      .regex(/^\d{1,9}$/, 'Choose a template')
      .transform(Number)
      .optional(),
    subject: requiredText('Subject', CAMPAIGN_SUBJECT_MAX),
    bodyHtml: z.string().max(TEMPLATE_BODY_MAX, maxLengthMessage(TEMPLATE_BODY_MAX)).optional(),
    /** The block designer's document (ADR 095); kept only while bodyHtml is its rendering. */
    textDesign: z.string().max(TEMPLATE_BODY_MAX, maxLengthMessage(TEMPLATE_BODY_MAX)).optional(),
    trackOpens: z.boolean().default(false),
    trackClicks: z.boolean().default(false),
  })
  .superRefine((v, ctx) => {
    if (!v.templateId && !v.bodyHtml?.trim()) ctx.addIssue({ code: 'custom', path: ['bodyHtml'], message: 'Write a message or choose a template' });
  });
export type EmailCampaignInput = z.infer<typeof EmailCampaignSchema>;

/** Send now, or at a local date and time in a time zone. */
export const ScheduleSchema = z
  .object({
    when: z.enum(['now', 'later'], { error: 'Choose when to send' }),
    scheduledAt: z.string().trim().regex(LOCAL_DATE_TIME, 'Enter a date and time').optional(),
    timeZone: z
      .string({ error: 'Choose a time zone' })
      .trim()
      .refine((v) => isTimeZone(v), 'Choose a time zone'),
  })
  .superRefine((v, ctx) => {
    if (v.when === 'later' && !v.scheduledAt) ctx.addIssue({ code: 'custom', path: ['scheduledAt'], message: 'Enter a date and time' });
  });

export const TestEmailSchema = z.object({
  testTo: z.email({ error: 'Enter a valid email address' }),
});

export const SmsCampaignSchema = z.object({
  name: requiredText('Name', CAMPAIGN_NAME_MAX),
  segmentId: idField('Segment must be specified'),
  inboxId: idField('SMS inbox must be specified'),
  body: requiredText('Message', SMS_BODY_MAX),
});
export type SmsCampaignInput = z.infer<typeof SmsCampaignSchema>;


/** A message (in-product chat) campaign (ADR 082). Pages: one link or path per line, all compared the same way. */
export const MessageCampaignSchema = z.object({
  name: requiredText('Name', CAMPAIGN_NAME_MAX),
  inboxId: idField('Messenger must be specified'),
  segmentId: z
    .string()
    .trim()
    .regex(/^\d{1,9}$/, 'Segment must be specified')
    .transform(Number)
    .optional(),
  senderUserId: idField('Sender must be specified'),
  body: requiredText('Message', CHAT_MESSAGE_MAX),
  pages: z
    .string()
    .max(2000, maxLengthMessage(2000))
    .optional()
    .transform((v) =>
      (v ?? '')
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter(Boolean),
    )
    .refine((lines) => lines.length <= 20, 'At most 20 pages')
    .refine((lines) => lines.every((l) => l.length <= 300), 'Each page must be at most 300 characters'),
  pageMatch: z.enum(PAGE_MATCHES, { error: 'Choose how pages are compared' }).default('contain'),
  delaySeconds: z.coerce
    .number({ error: 'Enter a number of seconds' })
    .int('Enter a whole number of seconds')
    .min(0, 'Enter a number of seconds')
    .max(CHAT_DELAY_MAX, `At most ${CHAT_DELAY_MAX} seconds`)
    .default(0),
  visitor: z.enum(CHAT_VISITORS, { error: 'Choose which visitors' }).default('any'),
  businessHoursOnly: z.boolean().default(false),
});
export type MessageCampaignInput = z.infer<typeof MessageCampaignSchema>;

const designText = (max: number) => z.string().max(max);
const designUrl = z.string().max(DESIGN_LIMITS.url).refine((u) => u === '' || u === 'https://' || /^https?:\/\/[^\s"<>]+$/i.test(u), 'Enter a web address (https://...)');

/** The designer's document (ADR 095), checked before the server renders from it: unknown blocks or fields refuse it. */
export const TextDesignSchema = z.object({
  version: z.literal(1),
  blocks: z
    .array(
      z.discriminatedUnion('type', [
        z.object({ type: z.literal('heading'), text: designText(DESIGN_LIMITS.short) }).strict(),
        z.object({ type: z.literal('text'), text: designText(DESIGN_LIMITS.text) }).strict(),
        z.object({ type: z.literal('image'), src: designUrl, alt: designText(DESIGN_LIMITS.short), href: designUrl }).strict(),
        z.object({ type: z.literal('button'), label: designText(DESIGN_LIMITS.short), href: designUrl, color: z.string().regex(/^#[0-9a-f]{6}$/i) }).strict(),
        z.object({ type: z.literal('divider') }).strict(),
        z.object({ type: z.literal('columns'), left: designText(DESIGN_LIMITS.text), right: designText(DESIGN_LIMITS.text) }).strict(),
      ]),
    )
    .max(DESIGN_LIMITS.blocks),
});
