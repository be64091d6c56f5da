/** Plain values of the forms area, apart from the zod schemas so that screens use them without shipping zod (ADR 027). */

/** Section 9's form field types, then free text, choice, consent and a file (issue 17). */
export const FORM_FIELD_TYPES = [
  'full_name',
  'email',
  'company',
  'department',
  'job_title',
  'phone',
  'website',
  'country',
  'short_text',
  'long_text',
  'choice',
  'consent',
  'file',
] as const;
export type FormFieldType = (typeof FORM_FIELD_TYPES)[number];

export const FIELD_TYPE_LABELS: Record<FormFieldType, string> = {
  full_name: 'Full name',
  email: 'Email',
  company: 'Company',
  department: 'Department',
  job_title: 'Job title',
  phone: 'Phone',
  website: 'Website',
  country: 'Country',
  short_text: 'Short text',
  long_text: 'Free text',
  choice: 'Choice',
  consent: 'Consent',
  file: 'File upload',
};

/** Section 9's brand colours with the shades the public form uses. */
export const BRAND_COLOURS = {
  blue: '#1d4ed8',
  orange: '#c2410c',
  red: '#b91c1c',
  violet: '#6d28d9',
  teal: '#0f766e',
  navy: '#1e3a8a',
  yellow: '#a16207',
} as const;
export type BrandColour = keyof typeof BRAND_COLOURS;
export const BRAND_COLOUR_NAMES = Object.keys(BRAND_COLOURS) as BrandColour[];

export const FORM_LIMITS = {
  name: 100,
  headerText: 150,
  description: 500,
  submitText: 40,
  thankYouMessage: 500,
  label: 150,
  fields: 30,
  options: 20,
  option: 100,
  answer: 2000,
  shortAnswer: 200,
} as const;

/** A form has at most one file field; its files follow the contact form's upload rules (ADR 067). */
export const FILE_FIELD_NAME = 'attachments';

export const FORM_STATUSES = ['draft', 'published'] as const;
export type FormStatus = (typeof FORM_STATUSES)[number];

export const FORMS_PAGE_SIZE = 50;

export const FORM_MESSAGES = {
  required: 'This field is required',
  email: 'Please enter a valid email',
  website: 'Website should have a valid uri',
  phone: 'Length must be less than or equal to 16 characters',
  phoneDigits: 'Phone number must contain digits only',
  choice: 'Please choose one of the options',
  country: 'Please choose a country',
  consent: 'Please give your consent to continue',
  tooLong: (max: number) => `Must be at most ${max} characters`,
  noEmail: 'A form needs an Email field so that responses reach the contact',
  oneFile: 'A form can have one file upload field',
  redirect: 'Redirect URL must be a valid https:// or http:// address',
} as const;
