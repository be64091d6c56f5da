import { z } from 'zod';
import { EmailSchema } from '../accounts/email-schema';
import { phoneSchema } from '../../utils/phone-schema';
import { CONTACT_PHONE_MESSAGE, emptyMessage, maxLengthMessage, SUBMISSION_MESSAGE_MAX, SUBMISSION_NAME_MAX, SUBMISSION_SUBJECT_MAX } from './constants';

/* The public contact page's submission, judged on the server only (ADR 027 addendum, 2026-11-24). */

function requiredText(label: string, max: number) {
  return z
    .string({ error: emptyMessage(label) })
    .trim()
    .min(1, emptyMessage(label))
    .max(max, maxLengthMessage(max));
}

export function contactSubmissionSchema(opts: { phone: boolean }) {
  return z.object({
    name: requiredText('Name', SUBMISSION_NAME_MAX),
    email: EmailSchema,
    // Section 5 "Shared" phone: digits only, 4 to 14, read as people type it (ADR 036); optional on the form.
    phone: opts.phone
      ? phoneSchema({ min: 4, max: 14, invalid: CONTACT_PHONE_MESSAGE, tooShort: CONTACT_PHONE_MESSAGE, tooLong: maxLengthMessage(14) })
      : z.undefined().catch(undefined),
    subject: requiredText('Subject', SUBMISSION_SUBJECT_MAX),
    message: requiredText('Message', SUBMISSION_MESSAGE_MAX),
  });
}
export type ContactSubmission = z.infer<ReturnType<typeof contactSubmissionSchema>>;
