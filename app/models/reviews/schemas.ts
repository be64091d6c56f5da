import { z } from 'zod';
import { REVIEW_LIMITS, REVIEW_MESSAGES, REVIEW_REQUEST_LIMITS, REVIEW_REQUEST_MESSAGES, REVIEW_SOURCE_KINDS } from './constants';

const optional = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `Must be at most ${max} characters`)
    .optional()
    .transform((v) => v || null);

/** A source in Settings → Reviews → Sources. The API fields are read for google and trustpilot only. */
export const ReviewSourceSchema = z
  .object({
    kind: z.enum(REVIEW_SOURCE_KINDS, { error: 'Choose a source' }),
    name: z
      .string({ error: 'Name is required' })
      .trim()
      .min(1, 'Name is required')
      .max(REVIEW_LIMITS.sourceName, `Must be at most ${REVIEW_LIMITS.sourceName} characters`),
    reviewUrl: optional(REVIEW_LIMITS.url).refine((v) => !v || /^https:\/\/[^\s]+$/i.test(v), REVIEW_MESSAGES.url),
    locationName: optional(200),
    businessUnitId: optional(100),
    pageId: optional(30),
    apiKey: optional(200),
    accessToken: optional(4000),
    refreshToken: optional(4000),
  })
  .superRefine((v, ctx) => {
    if (v.kind === 'google') {
      if (!v.locationName || !/^accounts\/[\w-]+\/locations\/[\w-]+$/.test(v.locationName)) ctx.addIssue({ code: 'custom', path: ['locationName'], message: REVIEW_MESSAGES.locationName });
    }
    if (v.kind === 'facebook' && v.pageId && !/^\d{1,20}$/.test(v.pageId)) ctx.addIssue({ code: 'custom', path: ['pageId'], message: REVIEW_MESSAGES.pageId });
    if (v.kind === 'trustpilot' && !v.businessUnitId) ctx.addIssue({ code: 'custom', path: ['businessUnitId'], message: REVIEW_MESSAGES.businessUnitId });
  });
export type ReviewSourceInput = Omit<z.infer<typeof ReviewSourceSchema>, 'refreshToken' | 'pageId'> & { refreshToken?: string | null; pageId?: string | null };

/** What a customer leaves on the public review page. */
export const PublicReviewSchema = z.object({
  rating: z.coerce.number({ error: REVIEW_MESSAGES.rating }).int(REVIEW_MESSAGES.rating).min(1, REVIEW_MESSAGES.rating).max(5, REVIEW_MESSAGES.rating),
  name: z
    .string({ error: REVIEW_MESSAGES.name })
    .trim()
    .min(1, REVIEW_MESSAGES.name)
    .max(REVIEW_LIMITS.name, `Must be at most ${REVIEW_LIMITS.name} characters`),
  email: z.string().trim().max(254).email(REVIEW_MESSAGES.email).optional(),
  text: z.string().trim().max(REVIEW_LIMITS.text, `Must be at most ${REVIEW_LIMITS.text} characters`).optional(),
});

export const ReplySchema = z.object({
  reply: z
    .string({ error: REVIEW_MESSAGES.reply })
    .trim()
    .min(1, REVIEW_MESSAGES.reply)
    .max(REVIEW_LIMITS.reply, `Must be at most ${REVIEW_LIMITS.reply} characters`),
});

/** Settings → Reviews → Email setup (ADR 086). A turned-on setup needs its sender, source, subject and link. */
export const ReviewRequestSchema = z
  .object({
    isEnabled: z
      .string()
      .optional()
      .transform((v) => v === 'on'),
    senderName: z.string().trim().max(REVIEW_REQUEST_LIMITS.senderName, `Must be at most ${REVIEW_REQUEST_LIMITS.senderName} characters`).optional().default(''),
    senderEmail: optional(254),
    subject: z
      .string({ error: REVIEW_REQUEST_MESSAGES.subject })
      .trim()
      .min(1, REVIEW_REQUEST_MESSAGES.subject)
      .max(REVIEW_REQUEST_LIMITS.subject, `Must be at most ${REVIEW_REQUEST_LIMITS.subject} characters`),
    body: z
      .string({ error: REVIEW_REQUEST_MESSAGES.body })
      .trim()
      .min(1, REVIEW_REQUEST_MESSAGES.body)
      .max(REVIEW_REQUEST_LIMITS.body, `Must be at most ${REVIEW_REQUEST_LIMITS.body} characters`)
      .refine((v) => v.includes('{{review_link}}'), REVIEW_REQUEST_MESSAGES.reviewLink),
    sourceId: z
      .string()
      .optional()
      .transform((v) => (v && /^\d{1,9}$/.test(v) ? Number(v) : null)),
    minCsat: z
      .string()
      .optional()
      .refine((v) => !v || /^[1-5]$/.test(v), REVIEW_REQUEST_MESSAGES.minCsat)
      .transform((v) => (v ? Number(v) : null)),
    periodDays: z.coerce
      .number({ error: REVIEW_REQUEST_MESSAGES.period })
      .int(REVIEW_REQUEST_MESSAGES.period)
      .min(1, REVIEW_REQUEST_MESSAGES.period)
      .max(REVIEW_REQUEST_LIMITS.periodDays, REVIEW_REQUEST_MESSAGES.period),
  })
  .superRefine((v, ctx) => {
    if (v.isEnabled && !v.sourceId) ctx.addIssue({ code: 'custom', path: ['sourceId'], message: REVIEW_REQUEST_MESSAGES.source });
    if (v.isEnabled && !v.senderEmail) ctx.addIssue({ code: 'custom', path: ['senderEmail'], message: REVIEW_REQUEST_MESSAGES.sender });
  });
export type ReviewRequestInput = z.infer<typeof ReviewRequestSchema>;
