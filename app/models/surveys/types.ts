/** The shapes stored in a survey's JSONB columns (ADR 053). Validated by the schemas in schemas.ts on every write. */
import type { QuestionType, SurveyLanguage } from './constants';

export type ChoiceOption = { choice: string; enableComment: boolean; tooltip?: string; order: number };
export type FormField = { name: string; label: string; type: string; isRequired: boolean; order: number };

export type QuestionSettings = {
  buttonLabel?: string;
  options?: ChoiceOption[];
  fields?: FormField[];
  scaleStyle?: 'numericals' | 'shapes' | 'text';
  scaleShape?: 'stars' | 'thumbs' | 'hearts';
  scaleLabels?: string[];
  range?: number;
  leftText?: string;
  rightText?: string;
  dateStructure?: 'DDMMYYYY' | 'MMDDYYYY' | 'YYYYMMDD';
  dateSeparator?: '/' | '-' | ',';
};

/**
 * One question. `id` is a short random string given by the server: it stays the same across edits, clones of the
 * survey aside, and across published versions, so a response's answers name their question (ADR 053).
 */
export type SurveyQuestion = {
  id: string;
  type: QuestionType;
  heading?: string;
  question: string;
  isRequired: boolean;
  order: number;
  settings: QuestionSettings;
};

export type SurveyDesign = {
  themeType: string;
  position: 'left' | 'right';
  brandColor: string;
  showQuestionNumber: boolean;
  indicateMandatory: boolean;
  showBranding: boolean;
  showProgressBar: boolean;
  footer: string;
  subject: string;
  header: string;
  subHeader: string;
  sendFrom: string;
};

export type SurveyMessages = {
  proceedToNext: string;
  completion: string;
  textPlaceholder: string;
  dropdownPlaceholder: string;
  mandatory: string;
};

export type PageCondition = { link: string; linkType: 'exact' | 'contain' | 'start' | 'end' };

export type SurveyTarget = {
  showOnAllPages: boolean;
  allowedPages: PageCondition[] | null;
  displayMethod: 'instant' | 'delay' | 'exit' | 'scroll';
  displayDelay: number | null;
  displayScroll: number | null;
  showUntilResponded: boolean;
  allowRetaking: boolean;
  refreshOnCompletion: boolean;
  tagIds: number[];
  /** Email: who gets it — contacts with any of `tagIds`, or the uploaded list `listId` (absent in older rows: tags). */
  audience?: 'tags' | 'csv';
  listId?: number | null;
};

export type SurveySettings = {
  language: SurveyLanguage;
  allowPartialSubmission: boolean;
  responseLimit: number | null;
  cutOffDate: string | null;
};
