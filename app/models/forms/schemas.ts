import { z } from 'zod';
import { INTERNATIONAL_PHONE } from '../../utils/phone-rules';
import { isCountryCode } from '../crm/countries';
import { BRAND_COLOUR_NAMES, FORM_FIELD_TYPES, FORM_LIMITS, FORM_MESSAGES, type FormFieldType } from './constants';
import type { FormFieldDef } from '../../../db/schema/forms';

const text = (label: string, max: number) =>
  z
    .string({ error: `${label} is required` })
    .trim()
    .min(1, `${label} is required`)
    .max(max, FORM_MESSAGES.tooLong(max));

const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, FORM_MESSAGES.tooLong(max))
    .optional()
    .transform((v) => v ?? '');

const checkbox = z
  .union([z.literal('on'), z.literal('true'), z.literal('1')])
  .optional()
  .transform((v) => v !== undefined);

const FormFieldRowSchema = z.object({
  key: z.string().regex(/^f_[a-z0-9]{4,16}$/, 'Unknown field'),
  type: z.enum(FORM_FIELD_TYPES, { error: 'Choose a field type' }),
  label: text('Label', FORM_LIMITS.label),
  required: checkbox,
  /** One choice per line. */
  options: optionalText(FORM_LIMITS.options * (FORM_LIMITS.option + 1)),
});

/** The builder's one form: the settings and the ordered field rows (ADR 067). */
export const FormBuilderSchema = z
  .object({
    name: text('Name', FORM_LIMITS.name),
    headerText: text('Header', FORM_LIMITS.headerText),
    description: optionalText(FORM_LIMITS.description),
    submitText: text('Submit button text', FORM_LIMITS.submitText),
    brandColour: z.enum(BRAND_COLOUR_NAMES as [string, ...string[]], { error: 'Choose a colour' }),
    thankYouMessage: text('Thank-you message', FORM_LIMITS.thankYouMessage),
    redirectUrl: z
      .string()
      .trim()
      .max(500, FORM_MESSAGES.tooLong(500))
      .optional()
      .refine((v) => !v || /^https?:\/\/[^\s/$.?#][^\s]*$/i.test(v), FORM_MESSAGES.redirect)
      .transform((v) => v || null),
    captcha: checkbox,
    inboxId: z
      .string()
      .optional()
      .transform((v) => (v ? Number(v) : null))
      .refine((v) => v === null || (Number.isInteger(v) && v > 0 && v <= 2_147_483_647), 'Choose an inbox'),
    fields: z.array(FormFieldRowSchema).max(FORM_LIMITS.fields, `A form can have at most ${FORM_LIMITS.fields} fields`).default([]),
  })
  .superRefine((v, ctx) => {
    v.fields.forEach((f, i) => {
      if (f.type === 'choice' && parseOptions(f.options).length < 2)
        ctx.addIssue({ code: 'custom', path: ['fields', i, 'options'], message: 'A choice needs at least two options, one per line' });
    });
    if (v.fields.filter((f) => f.type === 'file').length > 1) ctx.addIssue({ code: 'custom', path: ['fields'], message: FORM_MESSAGES.oneFile });
    if (v.fields.length > 0 && !v.fields.some((f) => f.type === 'email')) ctx.addIssue({ code: 'custom', path: ['fields'], message: FORM_MESSAGES.noEmail });
  });
export type FormBuilderInput = z.infer<typeof FormBuilderSchema>;

export function parseOptions(raw: string | undefined) {
  return [
    ...new Set(
      (raw ?? '')
        .split('\n')
        .map((o) => o.trim().slice(0, FORM_LIMITS.option))
        .filter(Boolean),
    ),
  ].slice(0, FORM_LIMITS.options);
}

export const CreateFormSchema = z.object({ name: text('Name', FORM_LIMITS.name) });

const answerText = (max: number) => z.string().trim().max(max, FORM_MESSAGES.tooLong(max));

/** The rule of one answer by the field's type; every field is optional unless required. */
function answerSchema(field: FormFieldDef) {
  const type = field.type as FormFieldType;
  const req = (s: z.ZodType<string, string>) =>
    field.required ? z.string({ error: FORM_MESSAGES.required }).trim().min(1, FORM_MESSAGES.required).pipe(s) : z.string().trim().optional().pipe(z.union([z.literal(''), s]).optional());
  switch (type) {
    case 'email':
      return req(z.string().max(254, FORM_MESSAGES.tooLong(254)).email(FORM_MESSAGES.email));
    case 'website':
      return req(z.string().max(200, FORM_MESSAGES.tooLong(200)).refine((v) => /^(https?:\/\/)?[a-z0-9-]+(\.[a-z0-9-]+)+(\/\S*)?$/i.test(v), FORM_MESSAGES.website));
    case 'phone':
      return req(
        z.string().superRefine((v, ctx) => {
          const typed = v.replace(/[\s()-]/g, '');
          if (!/^\+?\d*$/.test(typed)) return void ctx.addIssue({ code: 'custom', message: FORM_MESSAGES.phoneDigits });
          const digits = typed.replace(/^\+/, '').length;
          // With its country code, section 5's "International phone": a plus and 4 to 14 digits.
          if (typed.startsWith('+')) {
            if (digits < INTERNATIONAL_PHONE.min || digits > INTERNATIONAL_PHONE.max) ctx.addIssue({ code: 'custom', message: INTERNATIONAL_PHONE.message });
          } else if (digits < 4 || digits > 16) ctx.addIssue({ code: 'custom', message: FORM_MESSAGES.phone });
        }),
      );
    case 'country':
      return req(z.string().refine(isCountryCode, FORM_MESSAGES.country));
    case 'choice': {
      const options = field.options ?? [];
      return req(z.string().refine((v) => options.includes(v), FORM_MESSAGES.choice));
    }
    case 'consent':
      return field.required
        ? z.literal('on', { error: FORM_MESSAGES.consent })
        : z.literal('on').optional();
    case 'long_text':
      return req(answerText(FORM_LIMITS.answer));
    case 'file':
      return z.any().optional();
    default:
      return req(answerText(FORM_LIMITS.shortAnswer));
  }
}

/** What a visitor may send to one form: built from its fields, parsed on the server only. */
export function formSubmissionSchema(fields: FormFieldDef[]) {
  return z.object(Object.fromEntries(fields.filter((f) => f.type !== 'file').map((f) => [f.key, answerSchema(f)])));
}

// Building a form's zod schema costs about a millisecond of CPU (measured by bench:forms' profile): public
// submissions reuse it while the form is unchanged (its id and updatedAt), a few hundred forms at most.
const submissionSchemas = new Map<string, ReturnType<typeof formSubmissionSchema>>();

/** `formSubmissionSchema` for a saved form, built once per version of the form. */
export function cachedSubmissionSchema(form: { id: number; updatedAt: Date; fields: FormFieldDef[] }) {
  const key = `${form.id}:${form.updatedAt.getTime()}`;
  let found = submissionSchemas.get(key);
  if (!found) {
    if (submissionSchemas.size >= 500) submissionSchemas.delete(submissionSchemas.keys().next().value!);
    found = formSubmissionSchema(form.fields);
    submissionSchemas.set(key, found);
  }
  return found;
}
