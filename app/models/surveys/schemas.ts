import { z } from 'zod';
import { MAX_ROW_ID } from '../../utils/route-id';
import {
  DATE_SEPARATORS,
  DATE_STRUCTURES,
  DISPLAY_METHODS,
  FORM_FIELD_TYPES,
  LANGUAGES,
  LIMITS,
  LINK_TYPES,
  MESSAGE_LIMITS,
  POSITIONS,
  QUESTION_TYPES,
  SCALE_SHAPES,
  SCALE_STYLES,
  SURVEY_MESSAGES as M,
  SURVEY_SUB_TYPES,
  THEME_TYPES,
  BRAND_COLORS,
  type QuestionType,
  type SurveyChannel,
  type SurveySubType,
} from './constants';

export * from './constants';

export const maxLengthMessage = (n: number) => `Length must be less than or equal to ${n} characters`;

const requiredText = (max: number, message: string = M.enterValue) =>
  z.string({ error: message }).trim().min(1, message).max(max, maxLengthMessage(max));
const optionalText = (max: number) => z.string().trim().max(max, maxLengthMessage(max)).optional().default('');
const flag = z.boolean().optional().default(false);
const rowId = (message: string) => z.number({ error: message }).int(message).positive(message).max(MAX_ROW_ID, message);

// ---------------------------------------------------------------------------------------------- list and folders

/** Section 5 "Survey creation". */
export const CreateSurveySchema = z.object({
  name: z
    .string({ error: M.nameRequired })
    .trim()
    .min(LIMITS.surveyName.min, M.nameRequired)
    .max(LIMITS.surveyName.max, maxLengthMessage(LIMITS.surveyName.max)),
  folderId: rowId(M.folderRequired),
  subType: z.enum(SURVEY_SUB_TYPES, { error: M.subTypeRequired }),
  channel: z.enum(['in-app', 'email', 'web'], { error: 'Please select a Survey Type' }),
});
export type CreateSurveyInput = z.infer<typeof CreateSurveySchema>;

export const FolderSchema = z.object({
  name: z.string({ error: M.folderName }).trim().min(LIMITS.folderName.min, M.folderName).max(LIMITS.folderName.max, M.folderName),
  isPublic: flag,
  userIds: z.array(z.number().int().positive().max(MAX_ROW_ID)).max(500).optional().default([]),
});
export type FolderInput = z.infer<typeof FolderSchema>;

// ---------------------------------------------------------------------------------------------- questions

const optionSchema = z.object({
  choice: requiredText(LIMITS.option),
  enableComment: flag,
  tooltip: optionalText(LIMITS.tooltip),
  order: z.number().int().min(0).max(100).optional().default(0),
});
const formFieldSchema = z.object({
  name: z.enum(FORM_FIELD_TYPES).optional(),
  label: requiredText(LIMITS.formLabel),
  type: z.enum(FORM_FIELD_TYPES),
  isRequired: flag,
  order: z.number().int().min(0).max(100).optional().default(0),
});
const sideTexts = { leftText: optionalText(LIMITS.sideText), rightText: optionalText(LIMITS.sideText) };
const rangeOf = (allowed: readonly number[], fallback: number) =>
  z
    .number({ error: `Choose ${allowed.join(' or ')}` })
    .int()
    .refine((n) => allowed.includes(n), `Choose ${allowed.join(' or ')}`)
    .optional()
    .default(fallback);

/** Section 3 "Question settings by type", with section 5's limits. Unknown keys are dropped. */
export const QUESTION_SETTINGS: Record<QuestionType, z.ZodType> = {
  welcome: z.object({ buttonLabel: requiredText(LIMITS.buttonLabel).optional().default('Start') }),
  'thank-you': z.object({}),
  text: z.object({}),
  nps: z.object(sideTexts),
  radio: z.object({
    options: z
      .array(optionSchema)
      .min(LIMITS.options.min, `Add at least ${LIMITS.options.min} options`)
      .max(LIMITS.options.max, `At most ${LIMITS.options.max} options`),
  }),
  checkbox: z.object({
    options: z
      .array(optionSchema)
      .min(LIMITS.options.min, `Add at least ${LIMITS.options.min} options`)
      .max(LIMITS.options.max, `At most ${LIMITS.options.max} options`),
  }),
  dropdown: z.object({
    options: z
      .array(optionSchema)
      .min(LIMITS.options.min, `Add at least ${LIMITS.options.min} options`)
      .max(LIMITS.options.max, `At most ${LIMITS.options.max} options`),
  }),
  form: z.object({
    fields: z
      .array(formFieldSchema)
      .min(LIMITS.formFields.min, 'Add at least 1 field')
      .max(LIMITS.formFields.max, `At most ${LIMITS.formFields.max} fields`),
  }),
  rating: z
    .object({
      scaleStyle: z.enum(SCALE_STYLES).optional().default('numericals'),
      scaleShape: z.enum(SCALE_SHAPES).optional().default('stars'),
      scaleLabels: z.array(requiredText(LIMITS.sideText)).max(10).optional(),
      range: z
        .number({ error: `Range must be ${LIMITS.ratingRange.min} to ${LIMITS.ratingRange.max}` })
        .int()
        .min(LIMITS.ratingRange.min, `Range must be ${LIMITS.ratingRange.min} to ${LIMITS.ratingRange.max}`)
        .max(LIMITS.ratingRange.max, `Range must be ${LIMITS.ratingRange.min} to ${LIMITS.ratingRange.max}`)
        .optional()
        .default(5),
      ...sideTexts,
    })
    // Section 5 clean-up: a scale that is not text keeps no labels; a text scale has five.
    .transform((s) => (s.scaleStyle === 'text' ? { ...s, range: 5, scaleLabels: s.scaleLabels?.length === 5 ? s.scaleLabels : undefined } : { ...s, scaleLabels: undefined })),
  smiley: z.object({ range: rangeOf(LIMITS.smileyRanges, 5), ...sideTexts }),
  csat: z.object({ range: rangeOf(LIMITS.smileyRanges, 5), ...sideTexts }),
  ces: z.object({ range: rangeOf(LIMITS.cesRanges, 7), ...sideTexts }),
  date: z.object({ dateStructure: z.enum(DATE_STRUCTURES).optional().default('DDMMYYYY'), dateSeparator: z.enum(DATE_SEPARATORS).optional().default('/') }),
};

/** What a person edits of one question (its id, type and order are the server's). */
export function questionEditSchema(type: QuestionType) {
  return z
    .object({
      // Section 5: the introduction is required when shown, at most 40 characters.
      showHeading: flag,
      heading: optionalText(LIMITS.heading),
      question: requiredText(LIMITS.question),
      isRequired: flag,
      settings: (QUESTION_SETTINGS[type] as z.ZodObject).optional().default({}) as unknown as z.ZodType<Record<string, unknown>>,
    })
    .superRefine((q, ctx) => {
      if (q.showHeading && !q.heading) ctx.addIssue({ code: 'custom', message: M.enterValue, path: ['heading'] });
    })
    .transform(({ showHeading, ...q }) => ({ ...q, heading: showHeading ? q.heading : '' }));
}

export const QUESTION_ID_PATTERN = /^[a-z0-9]{6,16}$/;

/** One stored question, as the database holds it. */
export const StoredQuestionSchema = z
  .object({
    id: z.string().regex(QUESTION_ID_PATTERN, 'Unknown question'),
    type: z.enum(QUESTION_TYPES, { error: 'Unknown question type' }),
    heading: z.string().max(LIMITS.heading, maxLengthMessage(LIMITS.heading)).optional(),
    question: z.string().trim().min(1, M.enterValue).max(LIMITS.question, maxLengthMessage(LIMITS.question)),
    isRequired: z.boolean(),
    order: z.number().int().min(0),
    settings: z.record(z.string(), z.unknown()),
  })
  .transform((q, ctx) => {
    const settings = QUESTION_SETTINGS[q.type].safeParse(q.settings);
    if (!settings.success) {
      for (const issue of settings.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: ['settings', ...issue.path.map(String)] });
      return z.NEVER;
    }
    return { ...q, heading: q.heading || undefined, settings: settings.data as Record<string, unknown> };
  });

export const QUESTION_ORDER_MESSAGE = 'The questions must be numbered 0, 1, 2… in the order they are listed.';
export const WELCOME_FIRST_MESSAGE = 'The welcome question stays first.';

/**
 * A whole question list, as the model saves it: known types only, unique ids, orders 0..n-1 in list order, and the
 * welcome question first unless the survey is custom (section 2 "Question cards").
 */
export function questionListSchema(subType: SurveySubType) {
  return z
    .array(StoredQuestionSchema, { error: 'The question list is not valid' })
    .max(LIMITS.questions, `At most ${LIMITS.questions} questions`)
    .superRefine((list, ctx) => {
      const ids = new Set<string>();
      list.forEach((q, i) => {
        if (ids.has(q.id)) ctx.addIssue({ code: 'custom', message: 'A question appears twice', path: [i, 'id'] });
        ids.add(q.id);
        if (q.order !== i) ctx.addIssue({ code: 'custom', message: QUESTION_ORDER_MESSAGE, path: [i, 'order'] });
      });
      const welcomes = list.filter((q) => q.type === 'welcome').length;
      if (welcomes > 1) ctx.addIssue({ code: 'custom', message: 'A survey has one welcome question', path: [] });
      if (subType !== 'custom' && welcomes === 1 && list[0]?.type !== 'welcome') ctx.addIssue({ code: 'custom', message: WELCOME_FIRST_MESSAGE, path: [0] });
    });
}

// ---------------------------------------------------------------------------------------------- design and messages

export function designSchema(channel: SurveyChannel) {
  const themes = THEME_TYPES[channel] as [string, ...string[]];
  const email = channel === 'email';
  return z
    .object({
      themeType: z.enum(themes, { error: M.noTheme }),
      position: z.enum(POSITIONS).optional().default('left'),
      brandColor: z.enum(BRAND_COLORS.map((c) => c.hex) as [string, ...string[]]).optional().default(BRAND_COLORS[0].hex),
      showQuestionNumber: flag,
      indicateMandatory: flag,
      showBranding: flag,
      showProgressBar: flag,
      footerOn: flag,
      footer: optionalText(LIMITS.footer),
      subject: email ? requiredText(LIMITS.designText) : optionalText(LIMITS.designText),
      header: requiredText(LIMITS.designText),
      subHeader: optionalText(LIMITS.designText),
      sendFrom: email ? z.email({ error: 'Please select a sender address' }).max(320) : z.string().max(320).optional().default(''),
    })
    .transform(({ footerOn, ...d }) => ({
      ...d,
      // Section 4: the footer toggle off clears the footer; a progress bar is not an email thing.
      footer: footerOn ? d.footer : '',
      showProgressBar: email ? false : d.showProgressBar,
      position: d.position as 'left' | 'right',
    }));
}

export const MessagesSchema = z.object({
  proceedToNext: requiredText(MESSAGE_LIMITS.proceedToNext),
  completion: requiredText(MESSAGE_LIMITS.completion),
  textPlaceholder: requiredText(MESSAGE_LIMITS.textPlaceholder),
  dropdownPlaceholder: requiredText(MESSAGE_LIMITS.dropdownPlaceholder),
  mandatory: requiredText(MESSAGE_LIMITS.mandatory),
});

/** The design step's one form: the question being edited (when one is), the Design panel and the Messages panel. */
export function designStepSchema(channel: SurveyChannel, questionType: QuestionType | null) {
  return z.object({
    design: designSchema(channel),
    messages: MessagesSchema,
    ...(questionType ? { question: questionEditSchema(questionType) } : {}),
  });
}

// ---------------------------------------------------------------------------------------------- target

export const PAGE_CONDITION_MESSAGE = 'Each page condition needs a link type and a link';

export function targetSchema(channel: SurveyChannel) {
  return z
    .object({
      showOnAllPages: z.enum(['all', 'some']).optional().default('all'),
      allowedPages: z
        .array(
          z.object({
            link: z.string({ error: PAGE_CONDITION_MESSAGE }).trim().min(1, PAGE_CONDITION_MESSAGE).max(LIMITS.link, maxLengthMessage(LIMITS.link)),
            linkType: z.enum(LINK_TYPES, { error: PAGE_CONDITION_MESSAGE }),
          }),
        )
        .max(LIMITS.pages, `At most ${LIMITS.pages} page conditions`)
        .optional()
        .default([]),
      displayMethod: z.enum(DISPLAY_METHODS).optional().default('instant'),
      displayDelay: z
        .number({ error: M.enterValue })
        .int(M.enterValue)
        .min(LIMITS.delay.min, `Delay must be ${LIMITS.delay.min} to ${LIMITS.delay.max} seconds`)
        .max(LIMITS.delay.max, `Delay must be ${LIMITS.delay.min} to ${LIMITS.delay.max} seconds`)
        .optional(),
      displayScroll: z
        .number({ error: M.enterValue })
        .int(M.enterValue)
        .min(LIMITS.scroll.min, `Scroll must be ${LIMITS.scroll.min} to ${LIMITS.scroll.max} percent`)
        .max(LIMITS.scroll.max, `Scroll must be ${LIMITS.scroll.min} to ${LIMITS.scroll.max} percent`)
        .optional(),
      showUntilResponded: flag,
      allowRetaking: flag,
      refreshOnCompletion: flag,
      tagIds: z.array(z.number().int().positive().max(MAX_ROW_ID)).max(100).optional().default([]),
      audience: z.enum(['tags', 'csv']).optional().default('tags'),
      listId: z.number().int().positive().max(MAX_ROW_ID).optional(),
    })
    .superRefine((t, ctx) => {
      if (channel === 'in-app' && t.showOnAllPages === 'some' && t.allowedPages.length === 0)
        ctx.addIssue({ code: 'custom', message: PAGE_CONDITION_MESSAGE, path: ['allowedPages'] });
      if (channel === 'in-app' && t.displayMethod === 'delay' && t.displayDelay === undefined)
        ctx.addIssue({ code: 'custom', message: M.enterValue, path: ['displayDelay'] });
      if (channel === 'email' && t.audience === 'tags' && t.tagIds.length === 0) ctx.addIssue({ code: 'custom', message: M.tagIds, path: ['tagIds'] });
      if (channel === 'email' && t.audience === 'csv' && !t.listId) ctx.addIssue({ code: 'custom', message: M.listMissing, path: ['listId'] });
    })
    .transform((t) => {
      const inApp = channel === 'in-app';
      const all = !inApp || t.showOnAllPages === 'all';
      return {
        // Section 5: allowedPages is null on all pages; delay and scroll are null when not applicable.
        showOnAllPages: all,
        allowedPages: all ? null : t.allowedPages,
        displayMethod: inApp ? t.displayMethod : ('instant' as const),
        displayDelay: inApp && t.displayMethod === 'delay' ? (t.displayDelay ?? LIMITS.delay.default) : null,
        displayScroll: inApp && t.displayMethod === 'scroll' ? (t.displayScroll ?? LIMITS.scroll.default) : null,
        showUntilResponded: inApp ? t.showUntilResponded : false,
        allowRetaking: channel === 'web' ? t.allowRetaking : false,
        refreshOnCompletion: channel === 'web' ? t.refreshOnCompletion : false,
        tagIds: channel === 'email' && t.audience === 'tags' ? t.tagIds : [],
        ...(channel === 'email' ? { audience: t.audience, listId: t.audience === 'csv' ? (t.listId ?? null) : null } : {}),
      };
    });
}

// ---------------------------------------------------------------------------------------------- settings

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
export function cutOffBounds(now = new Date()) {
  const max = new Date(now);
  max.setUTCMonth(max.getUTCMonth() + LIMITS.cutOffMonths);
  const tomorrow = new Date(now.getTime() + 86_400_000);
  return { min: isoDay(now), max: isoDay(max), tomorrow: isoDay(tomorrow) };
}

export function settingsSchema(now = new Date()) {
  const bounds = cutOffBounds(now);
  const cutOffMessage = `Choose a date from ${bounds.min} to ${bounds.max}`;
  return z
    .object({
      name: z
        .string({ error: M.nameRequired })
        .trim()
        .min(LIMITS.surveyName.min, M.nameRequired)
        .max(LIMITS.surveyName.max, maxLengthMessage(LIMITS.surveyName.max)),
      folderId: rowId(M.folderRequired),
      language: z.enum(LANGUAGES, { error: 'Please select a language' }),
      allowPartialSubmission: flag,
      responseLimitOn: flag,
      responseLimit: z
        .number({ error: M.enterValue })
        .int(M.enterValue)
        .min(LIMITS.responseLimit.min, `Response limit must be ${LIMITS.responseLimit.min} to ${LIMITS.responseLimit.max}`)
        .max(LIMITS.responseLimit.max, `Response limit must be ${LIMITS.responseLimit.min} to ${LIMITS.responseLimit.max}`)
        .optional(),
      cutOffOn: flag,
      cutOffDate: z
        .string({ error: 'please select date' })
        .regex(/^\d{4}-\d{2}-\d{2}$/, 'please select date')
        .optional(),
    })
    .superRefine((s, ctx) => {
      if (s.responseLimitOn && s.responseLimit === undefined) ctx.addIssue({ code: 'custom', message: M.enterValue, path: ['responseLimit'] });
      if (s.cutOffOn) {
        if (!s.cutOffDate) ctx.addIssue({ code: 'custom', message: 'please select date', path: ['cutOffDate'] });
        else if (s.cutOffDate < bounds.min || s.cutOffDate > bounds.max) ctx.addIssue({ code: 'custom', message: cutOffMessage, path: ['cutOffDate'] });
      }
    })
    .transform((s) => ({
      name: s.name,
      folderId: s.folderId,
      language: s.language,
      allowPartialSubmission: s.allowPartialSubmission,
      // Section 5: null when the toggle is off.
      responseLimit: s.responseLimitOn ? (s.responseLimit ?? LIMITS.responseLimit.default) : null,
      cutOffDate: s.cutOffOn ? (s.cutOffDate ?? null) : null,
    }));
}

// ---------------------------------------------------------------------------------------------- share

export const ShareSchema = z.object({
  emails: z
    .string({ error: 'Enter at least one email address' })
    .trim()
    .min(1, 'Enter at least one email address')
    .transform((s, ctx) => {
      const list = [...new Set(s.split(/[\s,;]+/).filter(Boolean).map((e) => e.toLowerCase()))];
      if (list.length > LIMITS.shareEmails) ctx.addIssue({ code: 'custom', message: `At most ${LIMITS.shareEmails} addresses` });
      for (const e of list) if (!z.email().safeParse(e).success) ctx.addIssue({ code: 'custom', message: `${e} is not a valid email address` });
      return list;
    }),
  message: optionalText(LIMITS.shareMessage),
});

/** JSON reorder (with JavaScript, a drag and drop posts the whole order): every question id once. */
export const ReorderSchema = z.object({ order: z.array(z.string().regex(QUESTION_ID_PATTERN, 'Unknown question')).min(1).max(LIMITS.questions) });
