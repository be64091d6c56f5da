/** The productivity settings' plain values, apart from the zod schemas so that screens can use them without shipping zod (ADR 027). */
/** Section 3 "Colour options". */
export const TAG_COLOURS = ['red', 'orange', 'yellow', 'olive', 'green', 'teal', 'blue', 'violet', 'purple', 'brown', 'grey'] as const;
export type TagColour = (typeof TAG_COLOURS)[number];

/** Swatches for the colour options (Semantic UI's palette, whose names the specification uses). */
export const TAG_COLOUR_HEX: Record<TagColour, string> = {
  red: '#db2828',
  orange: '#f2711c',
  yellow: '#fbbd08',
  olive: '#b5cc18',
  green: '#21ba45',
  teal: '#00b5ad',
  blue: '#2185d0',
  violet: '#6435c9',
  purple: '#a333c8',
  brown: '#a5673f',
  grey: '#767676',
};

export const PRODUCTIVITY_PAGE_SIZE = 50;

/** The generic length message of section 5 ("Others"). */
export const maxLengthMessage = (n: number) => `Length must be less than or equal to ${n} characters`;
/** The specification's required-field wording ("Role Name is not allowed to be empty", "Source is not allowed to be empty"). */
export const emptyMessage = (label: string) => `${label} is not allowed to be empty`;

// ---------------------------------------------------------------------------------------------------------
// Tags (labels)

/** Tags share the segment dialog's name rule (section 5 "Segment": required, trimmed, at most 20). */
export const TAG_NAME_MAX = 20;

export const TAG_NAME_TAKEN_MESSAGE = 'A tag with this name already exists';

// ---------------------------------------------------------------------------------------------------------
// Canned responses (section 5: name required, at most 30; message required, at most 140)

export const CANNED_NAME_MAX = 30;

export const CANNED_MESSAGE_MAX = 140;

export const CANNED_NAME_TAKEN_MESSAGE = 'A canned response with this name already exists';

// ---------------------------------------------------------------------------------------------------------
// Email templates (the inbox's reply templates; their fields are not shown in the specification, so they
// follow the campaign template's rule for the name: required, trimmed, at most 30)

export const EMAIL_TEMPLATE_NAME_MAX = 30;

export const EMAIL_TEMPLATE_SUBJECT_MAX = 150;

export const EMAIL_TEMPLATE_BODY_MAX = 10_000;

export const EMAIL_TEMPLATE_NAME_TAKEN_MESSAGE = 'An email template with this name already exists';

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
