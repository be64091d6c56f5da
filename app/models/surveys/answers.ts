/**
 * What an answer to each question type may be, and how it is counted and shown (ADR 060). Pure functions: the
 * response model checks every answer with them before writing, the public pages and the results use the scales.
 * No zod: a question's settings decide the scale, and the messages name the question.
 */
import { FORM_FIELD_TYPES, TEXT_SCALE_LABELS, type QuestionType } from './constants';
import { COMMENT_MAX, FORM_VALUE_MAX, TEXT_ANSWER_MAX, type AnswerValue, type ChoiceAnswer, type ChoicesAnswer, type FormAnswer } from './response-types';
import type { SurveyQuestion } from './types';

/** Bad answer: a 400 with this message, nothing written. */
export class SurveyAnswerError extends Error {
  readonly status = 400;
  constructor(message: string, readonly questionId?: string) {
    super(message);
  }
}

/** Questions that take no answer: the welcome (a Start button) and a thank-you text. */
export const isAnswerable = (type: QuestionType) => type !== 'welcome' && type !== 'thank-you';

/**
 * The whole numbers a scale question takes: NPS 0-10; CES 0 to its rating count, 0-7 by default (section 9 "CES scale 0
 * to 7", ADR 146); the others 1 to their range (section 5 and 9).
 */
export function scaleOf(q: Pick<SurveyQuestion, 'type' | 'settings'>): { min: number; max: number } | null {
  switch (q.type) {
    case 'nps':
      return { min: 0, max: 10 };
    case 'rating':
      return { min: 1, max: q.settings.scaleStyle === 'text' ? 5 : q.settings.range ?? 5 };
    case 'smiley':
    case 'csat':
      return { min: 1, max: q.settings.range ?? 5 };
    case 'ces':
      return { min: 0, max: q.settings.range ?? 7 };
    default:
      return null;
  }
}

/** The label of one point of a scale: the text scale's words, else the number. */
export function scaleLabel(q: Pick<SurveyQuestion, 'type' | 'settings'>, value: number) {
  if (q.type === 'rating' && q.settings.scaleStyle === 'text') return (q.settings.scaleLabels ?? TEXT_SCALE_LABELS)[value - 1] ?? String(value);
  return String(value);
}

const SMILEYS: Record<number, string[]> = { 3: ['Unhappy', 'Neutral', 'Happy'], 5: ['Very unhappy', 'Unhappy', 'Neutral', 'Happy', 'Very happy'] };
/** The accessible name of a face of a smiley or CSAT scale. */
export const faceLabel = (range: number, value: number) => (SMILEYS[range] ?? SMILEYS[5])[value - 1] ?? String(value);

const quoted = (q: SurveyQuestion) => `“${q.question.length > 60 ? `${q.question.slice(0, 57)}…` : q.question}”`;
const isBlank = (v: unknown) =>
  v === undefined ||
  v === null ||
  (typeof v === 'string' && v.trim() === '') ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' &&
    !Array.isArray(v) &&
    v !== null &&
    'choices' in v &&
    Array.isArray((v as ChoicesAnswer).choices) &&
    (v as ChoicesAnswer).choices.length === 0);

function isoDay(v: string) {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}

const text = (v: unknown, max: number, q: SurveyQuestion, what = 'The answer') => {
  if (typeof v !== 'string') throw new SurveyAnswerError(`${what} to ${quoted(q)} must be text.`, q.id);
  const t = v.trim();
  if (t.length > max) throw new SurveyAnswerError(`${what} to ${quoted(q)} can be at most ${max} characters.`, q.id);
  return t;
};

function option(q: SurveyQuestion, choice: unknown) {
  const options = q.settings.options ?? [];
  const found = typeof choice === 'string' ? options.find((o) => o.choice === choice) : undefined;
  if (!found)
    throw new SurveyAnswerError(`${typeof choice === 'string' ? `“${choice.slice(0, 50)}”` : 'That'} is not one of the options of ${quoted(q)}.`, q.id);
  return found;
}

/**
 * Checks one answer against its question and returns it in its stored shape, or null for "no answer" (an empty
 * value clears an answer). Throws SurveyAnswerError (400) for a value outside the scale, of the wrong type, not an
 * option, or too long.
 */
export function checkAnswer(q: SurveyQuestion, raw: unknown): AnswerValue | null {
  if (!isAnswerable(q.type)) throw new SurveyAnswerError(`${quoted(q)} takes no answer.`, q.id);
  if (isBlank(raw)) return null;
  const scale = scaleOf(q);
  if (scale) {
    const n = typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw) : raw;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < scale.min || n > scale.max)
      throw new SurveyAnswerError(`The answer to ${quoted(q)} must be a whole number from ${scale.min} to ${scale.max}.`, q.id);
    return n;
  }
  switch (q.type) {
    case 'text':
      return text(raw, TEXT_ANSWER_MAX, q) || null;
    case 'date': {
      if (typeof raw !== 'string' || !isoDay(raw.trim())) throw new SurveyAnswerError(`The answer to ${quoted(q)} must be a real date (YYYY-MM-DD).`, q.id);
      return raw.trim();
    }
    case 'radio':
    case 'dropdown': {
      const v = (typeof raw === 'string' ? { choice: raw } : raw) as ChoiceAnswer;
      if (typeof v !== 'object' || Array.isArray(v)) throw new SurveyAnswerError(`The answer to ${quoted(q)} must be one of its options.`, q.id);
      const o = option(q, v.choice);
      const comment = o.enableComment && v.comment !== undefined && v.comment !== null ? text(v.comment, COMMENT_MAX, q, 'A comment') : '';
      return comment ? { choice: o.choice, comment } : { choice: o.choice };
    }
    case 'checkbox': {
      const v = (Array.isArray(raw) ? { choices: raw } : raw) as ChoicesAnswer;
      if (typeof v !== 'object' || !Array.isArray(v.choices)) throw new SurveyAnswerError(`The answer to ${quoted(q)} must be a list of its options.`, q.id);
      const picked = [...new Set(v.choices)].map((c) => option(q, c));
      // Kept in the options' order, so two respondents who ticked the same boxes have the same answer.
      const choices = (q.settings.options ?? []).filter((o) => picked.includes(o)).map((o) => o.choice);
      const comments: Record<string, string> = {};
      for (const o of picked) {
        const c = v.comments?.[o.choice];
        if (o.enableComment && c !== undefined && c !== null) {
          const t = text(c, COMMENT_MAX, q, 'A comment');
          if (t) comments[o.choice] = t;
        }
      }
      return Object.keys(comments).length ? { choices, comments } : { choices };
    }
    case 'form': {
      if (typeof raw !== 'object' || Array.isArray(raw) || raw === null)
        throw new SurveyAnswerError(`The answer to ${quoted(q)} must be its fields' values.`, q.id);
      const given = raw as Record<string, unknown>;
      const fields = q.settings.fields ?? [];
      for (const key of Object.keys(given))
        if (!fields.some((f) => f.name === key)) throw new SurveyAnswerError(`${quoted(q)} has no field “${key.slice(0, 50)}”.`, q.id);
      const out: FormAnswer = {};
      for (const f of fields) {
        const v = given[f.name];
        if (isBlank(v)) {
          if (f.isRequired) throw new SurveyAnswerError(`${f.label} is required.`, q.id);
          continue;
        }
        const t = text(v, FORM_VALUE_MAX, q, f.label);
        if (f.type === 'email' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(t)) throw new SurveyAnswerError(`${f.label}: enter a valid email address.`, q.id);
        if (f.type === 'website' && !/^(https?:\/\/)?[^\s/]+\.[^\s]+$/i.test(t)) throw new SurveyAnswerError(`${f.label}: enter a valid web address.`, q.id);
        if (f.type === 'phone' && !/^\+?[\d\s().-]{5,30}$/.test(t)) throw new SurveyAnswerError(`${f.label}: enter a valid phone number.`, q.id);
        out[f.name] = t;
      }
      return Object.keys(out).length ? out : null;
    }
    default:
      throw new SurveyAnswerError(`${quoted(q)} takes no answer.`, q.id);
  }
}

/** The keys an answer adds to its question's counts (ADR 060): '#' (answered), and the scale value or each choice. */
export function countKeys(q: Pick<SurveyQuestion, 'type'>, value: AnswerValue | undefined): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'number') return ['#', String(value)];
  if (q.type === 'radio' || q.type === 'dropdown') return ['#', `=${(value as ChoiceAnswer).choice}`];
  if (q.type === 'checkbox') return ['#', ...(value as ChoicesAnswer).choices.map((c) => `=${c}`)];
  return ['#'];
}

/** An answer as one line of text (CSV, text answers on the results). */
export function answerText(q: Pick<SurveyQuestion, 'type' | 'settings'> | undefined, value: AnswerValue | undefined): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number') return q ? scaleLabel(q, value) : String(value);
  if (typeof value === 'string') return value;
  if ('choices' in value && Array.isArray(value.choices)) {
    const c = (value as ChoicesAnswer).comments ?? {};
    return (value as ChoicesAnswer).choices.map((x) => (c[x] ? `${x} (${c[x]})` : x)).join('; ');
  }
  if ('choice' in value && typeof value.choice === 'string')
    return (value as ChoiceAnswer).comment ? `${value.choice} (${(value as ChoiceAnswer).comment})` : value.choice;
  const form = value as FormAnswer;
  const order = q?.settings.fields?.map((f) => f.name) ?? [...FORM_FIELD_TYPES];
  return order
    .filter((k) => form[k])
    .map((k) => `${q?.settings.fields?.find((f) => f.name === k)?.label ?? k}: ${form[k]}`)
    .join('; ');
}

/**
 * Checks the answers to several questions at once, collecting every problem (a page of questions shows them all):
 * `errors` by question id; with `required`, a required question without an answer gets the survey's mandatory message.
 */
export function checkAnswers(questions: SurveyQuestion[], raw: Record<string, unknown>, opts: { required: boolean; mandatory: string }) {
  const answers: Record<string, AnswerValue | null> = {};
  const errors: Record<string, string> = {};
  for (const q of questions) {
    if (!isAnswerable(q.type)) continue;
    try {
      const value = checkAnswer(q, raw[q.id]);
      answers[q.id] = value;
      if (value === null && opts.required && q.isRequired) errors[q.id] = opts.mandatory;
    } catch (err) {
      if (!(err instanceof SurveyAnswerError)) throw err;
      errors[q.id] = err.message;
    }
  }
  return { answers, errors };
}

/**
 * The raw answers a plain HTML form posted for these questions (the web survey pages): `a.{id}` the value (several for
 * a checkbox), `c.{id}.{option index}` an option's comment, `f.{id}.{field index}` a form field.
 */
export function readAnswersFromForm(form: FormData, questions: SurveyQuestion[]): Record<string, unknown> {
  const str = (name: string) => {
    const v = form.get(name);
    return typeof v === 'string' ? v : undefined;
  };
  const out: Record<string, unknown> = {};
  for (const q of questions) {
    if (!isAnswerable(q.type)) continue;
    const name = `a.${q.id}`;
    const options = q.settings.options ?? [];
    const comment = (choice: string) => {
      const i = options.findIndex((o) => o.choice === choice);
      return i >= 0 && options[i].enableComment ? str(`c.${q.id}.${i}`) : undefined;
    };
    if (q.type === 'checkbox') {
      const choices = form.getAll(name).filter((x): x is string => typeof x === 'string');
      const comments: Record<string, string> = {};
      for (const c of choices) {
        const t = comment(c);
        if (t) comments[c] = t;
      }
      out[q.id] = { choices, comments };
    } else if (q.type === 'radio' || q.type === 'dropdown') {
      const choice = str(name);
      out[q.id] = choice ? { choice, comment: comment(choice) } : undefined;
    } else if (q.type === 'form') {
      const values: Record<string, string> = {};
      (q.settings.fields ?? []).forEach((f, i) => {
        const v = str(`f.${q.id}.${i}`);
        if (v && v.trim()) values[f.name] = v;
      });
      out[q.id] = Object.keys(values).length ? values : undefined;
    } else out[q.id] = str(name);
  }
  return out;
}
