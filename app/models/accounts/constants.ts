/** Plain values of the forms beside them (schemas.ts), apart from the zod schemas so that screens can use them without shipping zod (ADR 027). */
export const RESERVED_DOMAINS = ['app', 'www', 'api', 'admin', 'mail', 'smtp', 'imap', 'help', 'docs', 'status', 'static', 'assets', 'ws', 'dev', 'parley'];

export const RESERVED_DOMAIN_MESSAGE = 'Invalid or reserved subdomain';

export const COMPANY_SIZES = ['1-10', '11-50', '51-200', '201-1000', '1000+'] as const;

export const INDUSTRIES = ['Software', 'E-commerce', 'Education', 'Finance', 'Healthcare', 'Agency', 'Other'] as const;

/**
 * Section 3 lists 22 languages; two of its codes are suspect (Lithuanian reusing Italian's, Portuguese as "py"),
 * so Parley uses the ISO 639-1 codes.
 */
export const LANGUAGES = [
  { value: 'ar', label: 'Arabic' },
  { value: 'zh', label: 'Chinese' },
  { value: 'da', label: 'Danish' },
  { value: 'nl', label: 'Dutch' },
  { value: 'en', label: 'English' },
  { value: 'fr', label: 'French' },
  { value: 'de', label: 'German' },
  { value: 'el', label: 'Greek' },
  { value: 'hi', label: 'Hindi' },
  { value: 'hu', label: 'Hungarian' },
  { value: 'it', label: 'Italian' },
  { value: 'ja', label: 'Japanese' },
  { value: 'ko', label: 'Korean' },
  { value: 'lt', label: 'Lithuanian' },
  { value: 'fa', label: 'Persian' },
  { value: 'pl', label: 'Polish' },
  { value: 'pt', label: 'Portuguese' },
  { value: 'ru', label: 'Russian' },
  { value: 'es', label: 'Spanish' },
  { value: 'sv', label: 'Swedish' },
  { value: 'tr', label: 'Turkish' },
  { value: 'vi', label: 'Vietnamese' },
] as const;

/** Settings → Account: when idle users are signed out, in minutes (0: never). */
export const IDLE_SIGN_OUT_CHOICES = [0, 15, 30, 60, 120, 240, 480] as const;
