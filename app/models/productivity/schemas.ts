import { z } from 'zod';
import { EmailSchema } from '../accounts/schemas';
import { phoneSchema } from '../../utils/phone';
import { emptyMessage, maxLengthMessage, TAG_COLOURS } from './constants';

export * from './constants';

/** A required, trimmed text of at most `max` characters. */
function requiredText(label: string, max: number) {
  return z
    .string({ error: emptyMessage(label) })
    .trim()
    .min(1, emptyMessage(label))
    .max(max, maxLengthMessage(max));
}

// ---------------------------------------------------------------------------------------------------------
// Tags (labels)

/** Tags share the segment dialog's name rule (section 5 "Segment": required, trimmed, at most 20). */
export const TAG_NAME_MAX = 20;
export const TAG_NAME_TAKEN_MESSAGE = 'A tag with this name already exists';

export const TagSchema = z.object({
  name: requiredText('Name', TAG_NAME_MAX),
  color: z.enum(TAG_COLOURS, { error: 'Choose a colour' }),
});
export type TagInput = z.infer<typeof TagSchema>;

// ---------------------------------------------------------------------------------------------------------
// Canned responses (section 5: name required, at most 30; message required, at most 140)

export const CANNED_NAME_MAX = 30;
export const CANNED_MESSAGE_MAX = 140;
export const CANNED_NAME_TAKEN_MESSAGE = 'A canned response with this name already exists';

export const CannedResponseSchema = z.object({
  name: requiredText('Name', CANNED_NAME_MAX),
  message: requiredText('Message', CANNED_MESSAGE_MAX),
});
export type CannedResponseInput = z.infer<typeof CannedResponseSchema>;

// ---------------------------------------------------------------------------------------------------------
// Email templates (the inbox's reply templates; their fields are not shown in the specification, so they
// follow the campaign template's rule for the name: required, trimmed, at most 30)

export const EMAIL_TEMPLATE_NAME_MAX = 30;
export const EMAIL_TEMPLATE_SUBJECT_MAX = 150;
export const EMAIL_TEMPLATE_BODY_MAX = 10_000;
export const EMAIL_TEMPLATE_NAME_TAKEN_MESSAGE = 'An email template with this name already exists';

export const EmailTemplateSchema = z.object({
  name: requiredText('Name', EMAIL_TEMPLATE_NAME_MAX),
  subject: z.string().trim().max(EMAIL_TEMPLATE_SUBJECT_MAX, maxLengthMessage(EMAIL_TEMPLATE_SUBJECT_MAX)).optional(),
  body: requiredText('Body', EMAIL_TEMPLATE_BODY_MAX),
});
export type EmailTemplateInput = z.infer<typeof EmailTemplateSchema>;

// ---------------------------------------------------------------------------------------------------------
// Contact form channel (section 5 "Contact form", section 9 defaults)

export const CONTACT_FORM_HEADER_MAX = 30;
export const CONTACT_FORM_TEXT_MAX = 100;
export const INBOX_REQUIRED_MESSAGE = 'Inbox must be specified';
export const NEW_INBOX = 'new';
export const NEW_INBOX_NAME_MAX = 20;

/** Section 9: email, name, message and subject always; phone, captcha and attachments off until chosen. */
export const CONTACT_FORM_DEFAULTS = {
  headerText: 'Contact us',
  subHeaderText: 'Leave us a message and we will get back to you by email.',
  submitText: 'Send',
  submitMsg: 'Thank you! Your message has been sent.',
  allowPhone: false,
  allowAttachments: false,
  allowCaptcha: false,
};

export const ContactFormSchema = z
  .object({
    headerText: requiredText('Header Text', CONTACT_FORM_HEADER_MAX),
    subHeaderText: requiredText('Sub Header Text', CONTACT_FORM_TEXT_MAX),
    submitText: requiredText('Submit Text', CONTACT_FORM_TEXT_MAX),
    submitMsg: requiredText('Submit Message', CONTACT_FORM_TEXT_MAX),
    // An inbox of the account, or `new` to create a contact-form inbox with the form.
    inboxId: z
      .string({ error: INBOX_REQUIRED_MESSAGE })
      .trim()
      .regex(/^(new|\d{1,10})$/, INBOX_REQUIRED_MESSAGE),
    newInboxName: z.string().trim().max(NEW_INBOX_NAME_MAX, maxLengthMessage(NEW_INBOX_NAME_MAX)).optional(),
    allowPhone: z.boolean().default(false),
    allowAttachments: z.boolean().default(false),
    allowCaptcha: z.boolean().default(false),
  })
  .superRefine((v, ctx) => {
    if (v.inboxId === NEW_INBOX && !v.newInboxName) {
      ctx.addIssue({ code: 'custom', path: ['newInboxName'], message: emptyMessage('Inbox Name') });
    }
  });
export type ContactFormInput = z.infer<typeof ContactFormSchema>;

/** The public page's honeypot: hidden from people, so only a bot fills it in. */
export const HONEYPOT_FIELD = 'website';
/** Contact form attachments: at most 3 files of at most 10 MB, images, PDF or plain text (the server checks the bytes). */
export const ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024;
export const ATTACHMENT_MAX_FILES = 3;
export const ATTACHMENT_ACCEPT = 'image/png,image/jpeg,image/gif,image/webp,application/pdf,text/plain,text/csv,.txt,.csv,.log';

/** What a visitor fills in on the public page. The phone is only read when the form asks for it. */
export const CONTACT_PHONE_MESSAGE = 'Enter a valid phone number';
export const SUBMISSION_NAME_MAX = 100;
export const SUBMISSION_SUBJECT_MAX = 200;
export const SUBMISSION_MESSAGE_MAX = 5_000;

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
