import { QUESTION_TYPES, TEXT_SCALE_LABELS, type EditorStep, type QuestionType, type SurveyChannel, stepsOf } from './constants';
import { SurveyInputError } from './folders.server';
import { addChoice, appendQuestion, cloneQuestion, moveQuestion, removeChoice, removeQuestion } from './questions.server';
import type { Survey } from './surveys.server';
import type { SurveyQuestion } from './types';

/**
 * The editor's buttons, each a submit button's `intent` (ADR 055): navigation that saves and moves, and the design
 * step's operations on the question list, each of which saves the step first.
 */
export type EditorIntent =
  | { kind: 'save' }
  | { kind: 'next' }
  | { kind: 'back' }
  | { kind: 'publish' }
  | { kind: 'goto'; step: EditorStep }
  | { kind: 'panel'; panel: Panel }
  | { kind: 'add'; type: QuestionType }
  | { kind: 'select' | 'up' | 'down' | 'clone' | 'delete'; id: string }
  | { kind: 'add-choice' }
  | { kind: 'remove-choice'; index: number }
  | { kind: 'add-page' }
  | { kind: 'remove-page'; index: number };

export const PANELS = ['components', 'design', 'messages'] as const;
export type Panel = (typeof PANELS)[number];

/** Reads an intent value; null for anything else (the route answers 400 "Unknown intent"). */
export function parseEditorIntent(value: FormDataEntryValue | null, channel: SurveyChannel): EditorIntent | null {
  if (typeof value !== 'string' || value.length > 40) return null;
  if (value === 'save' || value === 'next' || value === 'back' || value === 'publish' || value === 'add-choice' || value === 'add-page') return { kind: value };
  const [kind, arg = ''] = value.split(':', 2);
  if (kind === 'goto') return (stepsOf(channel) as string[]).includes(arg) ? { kind, step: arg as EditorStep } : null;
  if (kind === 'panel') return (PANELS as readonly string[]).includes(arg) ? { kind, panel: arg as Panel } : null;
  if (kind === 'add') return (QUESTION_TYPES as readonly string[]).includes(arg) ? { kind, type: arg as QuestionType } : null;
  if (kind === 'select' || kind === 'up' || kind === 'down' || kind === 'clone' || kind === 'delete') return /^[a-z0-9]{6,16}$/.test(arg) ? { kind, id: arg } : null;
  if (kind === 'remove-choice' || kind === 'remove-page') return /^\d{1,2}$/.test(arg) ? { kind, index: Number(arg) } : null;
  return null;
}

/** The step a navigation intent leads to (undefined: stay). */
export function targetStep(intent: EditorIntent, channel: SurveyChannel, current: EditorStep): EditorStep | undefined {
  const steps = stepsOf(channel);
  const i = steps.indexOf(current);
  if (intent.kind === 'next') return steps[Math.min(i + 1, steps.length - 1)];
  if (intent.kind === 'back') return steps[Math.max(i - 1, 0)];
  if (intent.kind === 'goto') return intent.step;
  return undefined;
}

export type QuestionEdit = { heading: string; question: string; isRequired: boolean; settings: Record<string, unknown> };

/** The edited question's fields over the stored question (its id, type and place stay the server's). */
export function mergeQuestion(stored: SurveyQuestion, edit: QuestionEdit): SurveyQuestion {
  const settings = { ...(edit.settings as SurveyQuestion['settings']) };
  if (settings.options) settings.options = settings.options.map((o, i) => ({ ...o, order: i }));
  if (settings.fields) settings.fields = settings.fields.map((f, i) => ({ ...f, name: f.type, order: i }));
  // A rating turned to a text scale starts with section 9's five labels.
  if (stored.type === 'rating' && settings.scaleStyle === 'text' && !settings.scaleLabels) settings.scaleLabels = [...TEXT_SCALE_LABELS];
  return {
    ...stored,
    heading: edit.heading || undefined,
    question: edit.question,
    isRequired: stored.type === 'welcome' || stored.type === 'thank-you' ? false : edit.isRequired,
    settings,
  };
}

/**
 * Applies a design-step operation to the question list (after the edited question was merged). Returns the new
 * list, the question to show next, and the toast that says what happened.
 */
export function applyQuestionOp(survey: Pick<Survey, 'subType'>, list: SurveyQuestion[], intent: EditorIntent, selectedId: string | null) {
  switch (intent.kind) {
    case 'add': {
      const r = appendQuestion(list, intent.type);
      return { list: r.list, selected: r.question.id, toast: null };
    }
    case 'select':
      if (!list.some((q) => q.id === intent.id)) throw new SurveyInputError('That question is not in this survey', undefined, 404);
      return { list, selected: intent.id, toast: null };
    case 'up':
    case 'down':
      return { list: moveQuestion(list, intent.id, intent.kind, survey.subType), selected: intent.id, toast: null };
    case 'clone': {
      const r = cloneQuestion(list, intent.id);
      return { list: r.list, selected: r.question.id, toast: 'Question Cloned Successfully' };
    }
    case 'delete':
      return { list: removeQuestion(list, intent.id), selected: selectedId === intent.id ? null : selectedId, toast: 'Question Deleted Successfully' };
    case 'add-choice':
    case 'remove-choice': {
      const i = list.findIndex((q) => q.id === selectedId);
      if (i < 0) throw new SurveyInputError('Choose a question first');
      const next = [...list];
      next[i] = intent.kind === 'add-choice' ? addChoice(list[i]) : removeChoice(list[i], intent.index);
      return { list: next, selected: selectedId, toast: null };
    }
    default:
      return { list, selected: selectedId, toast: null };
  }
}
