/**
 * The shapes of survey responses (ADR 060). Plain types and values: the public pages and the results screen import
 * them, so no zod and nothing server-only here.
 */

/** Where a response came from. The survey_received event names them in_app, web, email. */
export type ResponseChannel = 'web' | 'in-app' | 'email';
export const RESPONSE_CHANNELS: readonly ResponseChannel[] = ['web', 'in-app', 'email'];

/** A radio or dropdown answer: the option's text as the respondent saw it, and its comment when the option asks for one. */
export type ChoiceAnswer = { choice: string; comment?: string };
/** A checkbox answer: the options' texts, and the comments of those that ask for one. */
export type ChoicesAnswer = { choices: string[]; comments?: Record<string, string> };
/** A form answer: the value of each field, by the field's name (full name, email, …). */
export type FormAnswer = Record<string, string>;
/**
 * One answer. nps, rating, smiley, csat and ces: a whole number on the question's scale; text: a string; date: an ISO
 * day (YYYY-MM-DD); radio and dropdown: ChoiceAnswer; checkbox: ChoicesAnswer; form: FormAnswer.
 */
export type AnswerValue = number | string | ChoiceAnswer | ChoicesAnswer | FormAnswer;
/** A response's answers, keyed by question id (ids never change meaning across versions, ADR 053). */
export type SurveyAnswers = Record<string, AnswerValue>;

export const TEXT_ANSWER_MAX = 2000;
export const COMMENT_MAX = 500;
export const FORM_VALUE_MAX = 200;

/** Why a survey takes no response: the words of the closed page (served with 410). */
export const CLOSED_MESSAGES = {
  closed: 'This survey is closed.',
  completed: 'This survey has received all the responses it needed.',
  unpublished: 'This survey is not open for responses.',
} as const;
export type ClosedReason = keyof typeof CLOSED_MESSAGES;
export const CLOSED_DETAIL = 'Thank you for your interest. It no longer accepts answers.';
export const ALREADY_ANSWERED = 'You have already answered this survey. Thank you!';
