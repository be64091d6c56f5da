/**
 * The survey builder's values, limits and messages (specification survey-builder.md, sections 3, 5, 8, 9).
 * Plain data only: screens import this module, so it must never import zod (ADR 027).
 */

export const SURVEY_CHANNELS = ['in-app', 'email', 'web'] as const;
export type SurveyChannel = (typeof SURVEY_CHANNELS)[number];
export const CHANNEL_LABELS: Record<SurveyChannel, string> = { 'in-app': 'In-App', email: 'Email', web: 'Web' };

export const SURVEY_SUB_TYPES = ['csat', 'ces', 'nps', 'rating', 'smiley', 'custom'] as const;
export type SurveySubType = (typeof SURVEY_SUB_TYPES)[number];
export const SUB_TYPE_LABELS: Record<SurveySubType, string> = {
  csat: 'CSAT',
  ces: 'CES',
  nps: 'NPS',
  rating: 'Rating',
  smiley: 'Smiley',
  custom: 'Custom',
};

/** ADR 053: draft → published (publish) → closed (manual close or cut-off date passed) / completed (response limit reached). */
export const SURVEY_STATUSES = ['draft', 'published', 'closed', 'completed'] as const;
export type SurveyStatus = (typeof SURVEY_STATUSES)[number];
export const STATUS_LABELS: Record<SurveyStatus, string> = { draft: 'Draft', published: 'Published', closed: 'Closed', completed: 'Completed' };

export const QUESTION_TYPES = ['welcome', 'thank-you', 'text', 'nps', 'radio', 'checkbox', 'rating', 'smiley', 'dropdown', 'form', 'date', 'csat', 'ces'] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];
export const QUESTION_TYPE_LABELS: Record<QuestionType, string> = {
  welcome: 'Welcome',
  'thank-you': 'Thank You',
  text: 'Text',
  nps: 'NPS',
  radio: 'Single Choice',
  checkbox: 'Multiple Choice',
  rating: 'Rating',
  smiley: 'Smiley',
  dropdown: 'Dropdown',
  form: 'Form',
  date: 'Date',
  csat: 'CSAT',
  ces: 'CES',
};

export const LANGUAGES = ['AR', 'DE', 'EN', 'ES', 'FR', 'HI', 'IT', 'PT', 'RU', 'ZH'] as const;
export type SurveyLanguage = (typeof LANGUAGES)[number];
export const LANGUAGE_LABELS: Record<SurveyLanguage, string> = {
  AR: 'Arabic',
  DE: 'German',
  EN: 'English',
  ES: 'Spanish',
  FR: 'French',
  HI: 'Hindi',
  IT: 'Italian',
  PT: 'Portuguese',
  RU: 'Russian',
  ZH: 'Chinese',
};

export const BRAND_COLORS = [
  { name: 'blue', hex: '#2287FB' },
  { name: 'orange', hex: '#F7931E' },
  { name: 'red', hex: '#E5484D' },
  { name: 'violet', hex: '#7C3AED' },
  { name: 'teal', hex: '#0D9488' },
  { name: 'navy', hex: '#1E3A8A' },
  { name: 'yellow', hex: '#EAB308' },
] as const;
export const DEFAULT_BRAND_COLOR = '#2287FB';

export const THEME_TYPES: Record<SurveyChannel, readonly string[]> = {
  'in-app': ['full', 'small', 'pop-over'],
  web: ['traditional', 'conversational'],
  email: ['email'],
};
export const THEME_LABELS: Record<string, string> = {
  full: 'Full Screen',
  small: 'Small Box',
  'pop-over': 'Pop-over',
  traditional: 'Traditional',
  conversational: 'Conversational',
  email: 'Email',
};
export const DEFAULT_THEME: Record<SurveyChannel, string> = { 'in-app': 'full', web: 'traditional', email: 'email' };
export const POSITIONS = ['left', 'right'] as const;

export const DISPLAY_METHODS = ['instant', 'delay', 'exit', 'scroll'] as const;
export type DisplayMethod = (typeof DISPLAY_METHODS)[number];
export const DISPLAY_METHOD_LABELS: Record<DisplayMethod, string> = {
  instant: 'Instantly',
  delay: 'After a delay',
  exit: 'On exit intent',
  scroll: 'After scrolling',
};
export const LINK_TYPES = ['exact', 'contain', 'start', 'end'] as const;
export const LINK_TYPE_LABELS: Record<(typeof LINK_TYPES)[number], string> = {
  exact: 'Is exactly',
  contain: 'Contains',
  start: 'Starts with',
  end: 'Ends with',
};

export const FORM_FIELD_TYPES = ['full name', 'email', 'company', 'department', 'job title', 'phone', 'website', 'country'] as const;
export const DATE_STRUCTURES = ['DDMMYYYY', 'MMDDYYYY', 'YYYYMMDD'] as const;
export const DATE_SEPARATORS = ['/', '-', ','] as const;
export const SCALE_STYLES = ['numericals', 'shapes', 'text'] as const;
export const SCALE_SHAPES = ['stars', 'thumbs', 'hearts'] as const;
export const TEXT_SCALE_LABELS = ['Very Unsatisfied', 'Unsatisfied', 'Neutral', 'Satisfied', 'Very Satisfied'] as const;

/** Section 5 limits. */
export const LIMITS = {
  surveyName: { min: 3, max: 100 },
  folderName: { min: 3, max: 20 },
  designText: 1000,
  footer: 1000,
  heading: 40,
  question: 100,
  option: 50,
  tooltip: 50,
  sideText: 20,
  buttonLabel: 10,
  formLabel: 50,
  options: { min: 2, max: 20 },
  formFields: { min: 1, max: FORM_FIELD_TYPES.length },
  questions: 50,
  ratingRange: { min: 5, max: 10 },
  smileyRanges: [3, 5],
  cesRanges: [3, 5, 7],
  delay: { min: 0, max: 3600, default: 10 },
  scroll: { min: 0, max: 100, default: 100 },
  responseLimit: { min: 0, max: 1000, default: 50 },
  /** "3 units ahead": months (ADR 053). */
  cutOffMonths: 3,
  pages: 20,
  link: 500,
  logoBytes: 2 * 1024 * 1024,
  shareEmails: 10,
  shareMessage: 1000,
} as const;

export const MESSAGE_LIMITS = { proceedToNext: 10, completion: 75, textPlaceholder: 40, dropdownPlaceholder: 30, mandatory: 40 } as const;
export type MessageKey = keyof typeof MESSAGE_LIMITS;
export const MESSAGE_KEYS = Object.keys(MESSAGE_LIMITS) as MessageKey[];
export const DEFAULT_MESSAGES: Record<MessageKey, string> = {
  proceedToNext: 'Next',
  completion: 'Thank you for finishing our Survey',
  textPlaceholder: 'Please write your answer here',
  dropdownPlaceholder: 'Please select an option',
  mandatory: 'This is a required question.',
};
export const MESSAGE_LABELS: Record<MessageKey, string> = {
  proceedToNext: 'Proceed to next',
  completion: 'Completion message',
  textPlaceholder: 'Text answer placeholder',
  dropdownPlaceholder: 'Dropdown placeholder',
  mandatory: 'Mandatory question message',
};

export const DESIGN_DEFAULTS = {
  subject: 'Let us know about your experience',
  header: 'Customer Experience Survey',
  subHeader: 'We would love to hear your feedback about your experience with us.',
} as const;

/** The placeholders an email survey's subject, header and sub-header may hold (section 4). */
export const PLACEHOLDERS = ['{{NAME}}', '{{EMAIL}}'] as const;

export const DEFAULT_FOLDER_NAME = 'General';

/** Section 8: the specification's messages, word for word (spelling per ADR 038). */
export const SURVEY_MESSAGES = {
  nameRequired: 'Survey Name is required.',
  folderRequired: 'Must select a Folder.',
  subTypeRequired: 'Please select a Survey Type',
  enterValue: 'Please Enter Value',
  tagIds: 'please select tag ids',
  logoSize: 'File size must be less than 2mb.',
  logoType: 'Only png, jpg and jpeg images can be uploaded.',
  logoMissing: 'Please choose an image to upload.',
  folderName: 'Folder name must be 3 to 20 characters.',
  noPreview: 'Please Choose a Question from Left Side and you can see the preview here.',
  noTheme: 'Please select your themes',
  csvMissing: 'please select a csv file',
  csvSize: 'File size must be less than 5mb.',
  csvType: 'Only csv or excel files can be uploaded.',
  listName: 'Please enter a list name',
  listNameLength: 'The list name must be 30 characters or less.',
  listMissing: 'Please upload a recipient list',
  csvNotDraft: 'A recipient list can be uploaded only while the survey is a draft.',
  listEmailColumn: 'Map one column to Email',
  listMapped: 'This list is mapped already',
  date: 'please select date',
  timezone: 'please select timezone',
  interval: 'please select any interval',
} as const;

/** Email surveys (issue 15): the recipient list's limits and the recurring intervals (section 9). */
export const EMAIL_LIMITS = { csvBytes: 5 * 1024 * 1024, listName: 30, customIntervalMax: 365 } as const;
export const RECURRING_INTERVALS = ['7', '30', '60', 'custom'] as const;
export const AUDIENCES = ['tags', 'csv'] as const;
export type Audience = (typeof AUDIENCES)[number];

/** Section 7: the success toasts. */
export const SURVEY_TOASTS = {
  created: 'Survey Created Successfully',
  updated: 'Survey Updated Successfully',
  published: 'Survey Published Successfully',
  deleted: 'Survey Deleted',
  cloned: 'Survey Cloned',
  questionDeleted: 'Question Deleted Successfully',
  questionCloned: 'Question Cloned Successfully',
  logoUploaded: 'Logo successfully uploaded',
  logoRemoved: 'Logo Successfully Removed',
  shared: 'Instructions Sent Successfully',
  closed: 'Survey Closed',
  folderCreated: 'Folder Created',
  folderUpdated: 'Folder Updated',
  folderDeleted: 'Folder Deleted',
  csvUploaded: 'CSV file successfully uploaded',
} as const;

export const EDITOR_STEPS = ['design', 'target', 'settings', 'share'] as const;
export type EditorStep = (typeof EDITOR_STEPS)[number];
export const STEP_LABELS: Record<EditorStep, string> = { design: 'Design', target: 'Target', settings: 'Settings', share: 'Share' };

/** The steps of a channel: email has no Share step and publishes from Settings (section 2). */
export function stepsOf(channel: SurveyChannel): EditorStep[] {
  return channel === 'email' ? ['design', 'target', 'settings'] : [...EDITOR_STEPS];
}

export const isChannel = (v: unknown): v is SurveyChannel => typeof v === 'string' && (SURVEY_CHANNELS as readonly string[]).includes(v);
export const isStep = (v: unknown): v is EditorStep => typeof v === 'string' && (EDITOR_STEPS as readonly string[]).includes(v);

/** The questions a survey starts with, by sub type: a welcome, then the sub type's own question. */
export const STARTER_QUESTION: Record<SurveySubType, QuestionType | null> = {
  csat: 'csat',
  ces: 'ces',
  nps: 'nps',
  rating: 'rating',
  smiley: 'smiley',
  custom: null,
};

/** Section 9's label pairs for the scales. */
export const SIDE_TEXT_DEFAULTS: Partial<Record<QuestionType, [string, string]>> = {
  nps: ['Unsatisfied', 'Satisfied'],
  rating: ['Not Likely', 'Very Likely'],
  smiley: ['Unsatisfied', 'Satisfied'],
  csat: ['Unsatisfied', 'Satisfied'],
  ces: ['Strongly disagree', 'Strongly agree'],
};

export const SURVEY_PAGE_SIZE = 20;
