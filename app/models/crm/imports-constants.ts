/** Plain values of the forms beside them (imports.schemas.ts), apart from the zod schemas so that screens can use them without shipping zod (ADR 027). */
/**
 * Import statuses as the specification numbers them. "Ready for Import" is the specification's name for the
 * last state: in Parley it means the import has finished — every row was read and either created, updated,
 * skipped as a duplicate or recorded as failed — and the counts are final.
 */
export const IMPORT_STATUS = { pending: 1, underProgress: 2, readyForImport: 3 } as const;

export const IMPORT_STATUS_LABELS: Record<number, string> = { 1: 'Pending', 2: 'Under Progress', 3: 'Ready for Import' };

export const IMPORT_FIELDS = ['ignore', 'firstName', 'lastName', 'email', 'phone', 'title', 'website', 'country', 'company', 'tags'] as const;

export type ImportField = (typeof IMPORT_FIELDS)[number];

export const IMPORT_FIELD_LABELS: Record<ImportField, string> = {
  ignore: 'Ignore',
  firstName: 'First name',
  lastName: 'Last name',
  email: 'Email',
  phone: 'Phone',
  title: 'Title',
  website: 'Website',
  country: 'Country',
  company: 'Company name',
  tags: 'Tags',
};

export const IMPORT_MESSAGES = {
  noFile: 'Choose a CSV or Excel (.xlsx) file to import',
  tooLarge: 'The file is larger than 10 MB',
  badType: 'The file must be a CSV or an Excel (.xlsx) file',
  empty: 'The file has no rows to import',
  unreadable: 'The file could not be read as a CSV or an Excel (.xlsx) file',
  needKey: 'Map at least one column to Email, First name or Last name',
  mappedTwice: (label: string) => `${label} is mapped to more than one column`,
} as const;

export const ROW_ERRORS = {
  invalidEmail: 'Invalid email',
  missingNameAndEmail: 'Missing name and email',
  invalidPhone: 'Invalid phone: digits only, 4 to 16',
  invalidWebsite: 'Website should have a valid uri',
  tooLong: (label: string) => `${label} is longer than 200 characters`,
  companyName: 'Company name must be 2 to 20 characters',
} as const;
