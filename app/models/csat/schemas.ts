import { z } from 'zod';
import { MAX_ROW_ID } from '../../utils/route-id';
import { CSAT_DEFAULTS, CSAT_LIMITS, CSAT_MESSAGES as M } from './constants';

export * from './constants';

const text = (max: number, label: string) => z.string().trim().max(max, `${label} must be ${max} characters or less`).optional().default('');
const flag = z.boolean().optional().default(false);
const inboxIds = z
  .array(z.number().int().positive().max(MAX_ROW_ID), { error: M.inboxes })
  .min(1, M.inboxes)
  .max(100)
  .transform((ids) => [...new Set(ids)]);
const subject = z.string({ error: M.subject }).trim().min(1, M.subject).max(CSAT_LIMITS.subject, `Subject must be ${CSAT_LIMITS.subject} characters or less`);

/** Settings → Customer Satisfaction → Email Survey (suite.md sections 3 and 5 "Email survey (settings)", section 9 defaults). */
export const EmailCsatSchema = z.object({
  inboxIds,
  subject,
  heading: text(CSAT_LIMITS.heading, 'Heading'),
  subHeading: text(CSAT_LIMITS.heading, 'Sub heading'),
  footer: text(CSAT_LIMITS.heading, 'Footer'),
  ratingsType: z.enum(['star', 'emoji']).optional().default('star'),
  commentEnabled: flag,
  commentEnabledBelow: z
    .number({ error: M.below })
    .int(M.below)
    .min(1, M.below)
    .max(5, M.below)
    .optional()
    .default(CSAT_DEFAULTS.commentEnabledBelow),
  commentTitle: text(CSAT_LIMITS.commentTitle, 'Comment title').transform((v) => v || CSAT_DEFAULTS.commentTitle),
  finishText: text(CSAT_LIMITS.finishText, 'Finish text').transform((v) => v || CSAT_DEFAULTS.finishText),
  allowMultipleFeedback: flag,
});

/** Settings → Customer Satisfaction → Chat Survey (suite.md section 5 "Chat survey (settings)"). */
export const ChatCsatSchema = z.object({
  inboxIds,
  subject,
  ratingsType: z.enum(['star', 'emoji']).optional().default('star'),
  commentEnabled: flag,
  allowMultipleFeedback: flag,
});

export type EmailCsatInput = z.output<typeof EmailCsatSchema>;
export type ChatCsatInput = z.output<typeof ChatCsatSchema>;

/** The rating page's comment. */
export const CsatCommentSchema = z.object({
  comment: z.string().trim().min(1, 'Please write a comment').max(2000, 'The comment must be 2000 characters or less'),
});
