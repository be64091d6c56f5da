import { z } from 'zod';
import {
  emptyMessage,
  maxLengthMessage,
  TAG_COLOURS,
  TAG_NAME_MAX,
  CANNED_NAME_MAX,
  CANNED_MESSAGE_MAX,
  EMAIL_TEMPLATE_NAME_MAX,
  EMAIL_TEMPLATE_SUBJECT_MAX,
  EMAIL_TEMPLATE_BODY_MAX,
  CONTACT_FORM_HEADER_MAX,
  CONTACT_FORM_TEXT_MAX,
  INBOX_REQUIRED_MESSAGE,
  NEW_INBOX,
  NEW_INBOX_NAME_MAX,
} from './constants';
export * from './constants';
export * from './contact-submission';

/** A required, trimmed text of at most `max` characters. */
function requiredText(label: string, max: number) {
  return z
    .string({ error: emptyMessage(label) })
    .trim()
    .min(1, emptyMessage(label))
    .max(max, maxLengthMessage(max));
}

export const TagSchema = z.object({
  name: requiredText('Name', TAG_NAME_MAX),
  color: z.enum(TAG_COLOURS, { error: 'Choose a colour' }),
});
export type TagInput = z.infer<typeof TagSchema>;

export const CannedResponseSchema = z.object({
  name: requiredText('Name', CANNED_NAME_MAX),
  message: requiredText('Message', CANNED_MESSAGE_MAX),
});
export type CannedResponseInput = z.infer<typeof CannedResponseSchema>;

export const EmailTemplateSchema = z.object({
  name: requiredText('Name', EMAIL_TEMPLATE_NAME_MAX),
  subject: z.string().trim().max(EMAIL_TEMPLATE_SUBJECT_MAX, maxLengthMessage(EMAIL_TEMPLATE_SUBJECT_MAX)).optional(),
  body: requiredText('Body', EMAIL_TEMPLATE_BODY_MAX),
});
export type EmailTemplateInput = z.infer<typeof EmailTemplateSchema>;

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
