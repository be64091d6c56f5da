import crypto from 'node:crypto';
import { FORM_FIELD_TYPES, LIMITS, QUESTION_TYPE_LABELS, SIDE_TEXT_DEFAULTS, TEXT_SCALE_LABELS, type QuestionType, type SurveySubType } from './constants';
import { SurveyInputError } from './folders.server';
import type { QuestionSettings, SurveyQuestion } from './types';

/** A question's id: short, random, lower-case (ADR 053). */
export function newQuestionId() {
  return crypto.randomBytes(8).toString('hex').slice(0, 10);
}

const DEFAULT_TEXT: Record<QuestionType, string> = {
  welcome: 'We would love your feedback',
  'thank-you': 'Thank you for your time!',
  text: 'Is there anything else you would like to tell us?',
  nps: 'How likely are you to recommend us to a friend or colleague?',
  radio: 'Which of these describes you best?',
  checkbox: 'Which features do you use?',
  rating: 'How would you rate your experience?',
  smiley: 'How do you feel about our service?',
  dropdown: 'How did you hear about us?',
  form: 'Tell us about yourself',
  date: 'When did you first use our product?',
  csat: 'How satisfied are you with our service?',
  ces: 'The company made it easy for me to handle my issue.',
};

function defaultSettings(type: QuestionType): QuestionSettings {
  const sides = SIDE_TEXT_DEFAULTS[type];
  const side = sides ? { leftText: sides[0], rightText: sides[1] } : {};
  switch (type) {
    case 'welcome':
      return { buttonLabel: 'Start' };
    case 'radio':
    case 'checkbox':
    case 'dropdown':
      return {
        options: [1, 2, 3].map((n, i) => ({ choice: `Option ${n}`, enableComment: false, order: i })),
      };
    case 'form':
      return {
        fields: [
          { name: 'full name', label: 'Full name', type: 'full name', isRequired: true, order: 0 },
          { name: 'email', label: 'Email', type: 'email', isRequired: true, order: 1 },
        ],
      };
    case 'rating':
      return { scaleStyle: 'numericals', scaleShape: 'stars', range: 5, ...side };
    case 'smiley':
    case 'csat':
      return { range: 5, ...side };
    case 'ces':
      return { range: 7, ...side };
    case 'nps':
      return { ...side };
    case 'date':
      return { dateStructure: 'DDMMYYYY', dateSeparator: '/' };
    default:
      return {};
  }
}

export function defaultQuestion(type: QuestionType, order: number, id = newQuestionId()): SurveyQuestion {
  return {
    id,
    type,
    question: DEFAULT_TEXT[type],
    isRequired: type !== 'welcome' && type !== 'thank-you' && type !== 'text',
    order,
    settings: defaultSettings(type),
  };
}

export function starterQuestions(starter: QuestionType | null): SurveyQuestion[] {
  const list = [defaultQuestion('welcome', 0)];
  if (starter) list.push(defaultQuestion(starter, 1));
  return list;
}

/** Section 5 clean-up: questions are renumbered by their place, from 0. */
export const renumber = (list: SurveyQuestion[]) => list.map((q, i) => ({ ...q, order: i }));

function indexOf(list: SurveyQuestion[], id: string) {
  const i = list.findIndex((q) => q.id === id);
  if (i < 0) throw new SurveyInputError('That question is not in this survey', undefined, 404);
  return i;
}

/** New questions are appended at the end (section 2). */
export function appendQuestion(list: SurveyQuestion[], type: QuestionType) {
  if (list.length >= LIMITS.questions) throw new SurveyInputError(`At most ${LIMITS.questions} questions`);
  if (type === 'welcome' && list.some((q) => q.type === 'welcome')) throw new SurveyInputError('A survey has one welcome question');
  const q = defaultQuestion(type, list.length);
  return { list: [...list, q], question: q };
}

/**
 * Moves a question one place up or down. Section 2: nothing moves to (or away from) position 0 unless the survey's
 * sub type is custom — the welcome question stays first.
 */
export function moveQuestion(list: SurveyQuestion[], id: string, direction: 'up' | 'down', subType: SurveySubType) {
  const i = indexOf(list, id);
  const j = direction === 'up' ? i - 1 : i + 1;
  if (j < 0 || j >= list.length) throw new SurveyInputError(`That question cannot move ${direction}`);
  if (subType !== 'custom' && (i === 0 || j === 0)) throw new SurveyInputError('The first question stays first');
  const next = [...list];
  [next[i], next[j]] = [next[j], next[i]];
  return renumber(next);
}

/** A whole new order (a drag and drop): the same questions, each once, with the same rule for position 0. */
export function reorderQuestions(list: SurveyQuestion[], order: string[], subType: SurveySubType) {
  if (order.length !== list.length || new Set(order).size !== order.length || order.some((id) => !list.some((q) => q.id === id)))
    throw new SurveyInputError('The new order must list every question of the survey once');
  if (subType !== 'custom' && order[0] !== list[0].id) throw new SurveyInputError('The first question stays first');
  return renumber(order.map((id) => list.find((q) => q.id === id)!));
}

/** A copy right after the original. The welcome question has no copies. */
export function cloneQuestion(list: SurveyQuestion[], id: string) {
  const i = indexOf(list, id);
  if (list[i].type === 'welcome') throw new SurveyInputError('A survey has one welcome question');
  if (list.length >= LIMITS.questions) throw new SurveyInputError(`At most ${LIMITS.questions} questions`);
  const copy: SurveyQuestion = { ...structuredClone(list[i]), id: newQuestionId() };
  const next = [...list.slice(0, i + 1), copy, ...list.slice(i + 1)];
  return { list: renumber(next), question: copy };
}

/** Section 2: the question at index 0 cannot be deleted. */
export function removeQuestion(list: SurveyQuestion[], id: string) {
  const i = indexOf(list, id);
  if (i === 0) throw new SurveyInputError('The first question cannot be deleted');
  return renumber(list.filter((q) => q.id !== id));
}

/** Adds an option (radio, checkbox, dropdown) or a form field to a question, with a valid default. */
export function addChoice(q: SurveyQuestion): SurveyQuestion {
  if (q.type === 'form') {
    const fields = q.settings.fields ?? [];
    const free = FORM_FIELD_TYPES.find((t) => !fields.some((f) => f.type === t));
    if (!free || fields.length >= LIMITS.formFields.max) throw new SurveyInputError(`At most ${LIMITS.formFields.max} fields`);
    const label = free.charAt(0).toUpperCase() + free.slice(1);
    return { ...q, settings: { ...q.settings, fields: [...fields, { name: free, label, type: free, isRequired: false, order: fields.length }] } };
  }
  if (q.type === 'radio' || q.type === 'checkbox' || q.type === 'dropdown') {
    const options = q.settings.options ?? [];
    if (options.length >= LIMITS.options.max) throw new SurveyInputError(`At most ${LIMITS.options.max} options`);
    return { ...q, settings: { ...q.settings, options: [...options, { choice: `Option ${options.length + 1}`, enableComment: false, order: options.length }] } };
  }
  throw new SurveyInputError(`A ${QUESTION_TYPE_LABELS[q.type]} question has no options`);
}

/** Removes an option or field; section 5: never below 2 options or 1 field. */
export function removeChoice(q: SurveyQuestion, index: number): SurveyQuestion {
  if (q.type === 'form') {
    const fields = q.settings.fields ?? [];
    if (fields.length <= LIMITS.formFields.min) throw new SurveyInputError('A form keeps at least 1 field');
    if (!fields[index]) throw new SurveyInputError('That field is not in this question');
    return { ...q, settings: { ...q.settings, fields: fields.filter((_, i) => i !== index).map((x, i) => ({ ...x, order: i })) } };
  }
  const options = q.settings.options ?? [];
  if (options.length <= LIMITS.options.min) throw new SurveyInputError(`A question keeps at least ${LIMITS.options.min} options`);
  if (!options[index]) throw new SurveyInputError('That option is not in this question');
  return { ...q, settings: { ...q.settings, options: options.filter((_, i) => i !== index).map((x, i) => ({ ...x, order: i })) } };
}

export { TEXT_SCALE_LABELS };
