import type { SubmissionResult } from '@conform-to/react';
import { parseWithZod } from '../../utils/conform.server';
import { AiServerError } from './client.server';
import { AiHelpSchema, REWRITE_STYLES, type RewriteStyle } from './forms';
import { AiCapReachedError, AiInputError, completeAiHelp, planAiHelp } from './help.server';
import { resolveAiServer } from './settings.server';
import { getConfig } from '../../utils/env.server';

export const AI_REVIEW_NOTICE = 'AI suggestion in the reply box: review it before you send. Nothing is sent until you send it.';

/**
 * The words of the reply box's AI part, decided on the server (they depend on the account's server and the
 * channel) and sent with the page's data, which keeps them out of the page's script.
 */
export async function aiHelpLabels(opts: { accountId: number; channelType: string; allowed?: boolean; accountServer?: boolean }) {
  // `accountServer`: whether the account's own AI server is set, when the caller read it already (the conversation
  // page's one statement, ADR 133); then no read here, and the same answer as `resolveAiServer`.
  const configured =
    opts.accountServer !== undefined && opts.allowed !== undefined
      ? opts.allowed && (opts.accountServer || getConfig().ai.server !== null)
      : (await resolveAiServer({ accountId: opts.accountId, allowed: opts.allowed })) !== null;
  const email = opts.channelType === 'email';
  return {
    configured,
    legend: configured ? 'AI help' : 'Reply help',
    instruction: email ? 'What should the reply say?' : 'Instruction (optional)',
    write: configured ? (email ? 'Write with AI' : 'Suggest a reply') : 'Suggest responses',
    idle: configured
      ? 'Suggestions go into the reply box; nothing is sent until you send it.'
      : 'No AI server is set up: this suggests canned responses and articles that match the conversation.',
    styles: REWRITE_STYLES.map((s) => ({ value: s.value, label: s.label })),
  };
}

/** What the conversation page shows after an AI button: the answer for the reply box, or suggestions, or why not. */
export type AiHelpOutcome = {
  nonce: string;
  kind: 'ai' | 'suggestions';
  /** The sentence under the buttons, and the suggestions' heading. */
  notice: string;
  heading: string;
  /** The reply box's new text (the AI's answer), or the agent's own text back. */
  text: string;
  error: string | null;
  cc: string;
  bcc: string;
  instruction: string;
  style: RewriteStyle;
  language: string;
  canned: { id: number; name: string; message: string }[];
  articles: { id: number; title: string; url: string; snippet: string }[];
};

/** The HTTP status of a failed call: the server's busy signal and timeouts keep their meaning. */
export function statusOfAiError(err: AiServerError | AiCapReachedError) {
  if (err instanceof AiCapReachedError) return 429;
  return err.kind === 'rate_limited' ? 429 : err.kind === 'timeout' ? 504 : 502;
}

/**
 * The reply form's AI buttons without JavaScript (a full page answer): parse, plan, call, and hand back the page's
 * state. Errors of the AI server leave the agent's text as it was and still offer the full-text suggestions.
 */
export async function aiHelpForPage(opts: { accountId: number; userId: number; conversationId: number; formData: FormData; siteUrl: string }) {
  const submission = parseWithZod(opts.formData, { schema: AiHelpSchema });
  if (submission.status !== 'success') return { status: 400, result: submission.reply() as SubmissionResult<string[]> };
  const v = submission.value;
  let plan;
  try {
    plan = await planAiHelp({ accountId: opts.accountId, conversationId: opts.conversationId, input: v, siteUrl: opts.siteUrl });
  } catch (err) {
    if (err instanceof AiInputError) return { status: 400, result: submission.reply({ fieldErrors: { [err.field]: [err.message] } }) as SubmissionResult<string[]> };
    throw err;
  }
  if (!plan) return null;
  const outcome: AiHelpOutcome = {
    nonce: `${Date.now()}`,
    kind: plan.kind,
    notice: AI_REVIEW_NOTICE,
    heading: 'Suggestions (not AI): matching canned responses and articles',
    text: v.text ?? '',
    error: null,
    cc: String(opts.formData.get('cc') ?? ''),
    bcc: String(opts.formData.get('bcc') ?? ''),
    instruction: v.aiInstruction ?? '',
    style: v.aiStyle,
    language: v.aiLanguage ?? '',
    canned: [],
    articles: plan.articles.map((a) => ({ id: a.id, title: a.title, url: a.url, snippet: a.snippet })),
  };
  let status = 200;
  if (plan.kind === 'ai') {
    try {
      outcome.text = await completeAiHelp({ accountId: opts.accountId, userId: opts.userId, conversationId: opts.conversationId, plan });
    } catch (err) {
      if (!(err instanceof AiServerError || err instanceof AiCapReachedError)) throw err;
      outcome.error = err.message;
      status = statusOfAiError(err);
    }
  }
  // Without AI, or when it failed: the best canned responses and articles by full-text search.
  if (plan.kind === 'suggestions' || outcome.error) {
    outcome.kind = 'suggestions';
    outcome.canned = plan.canned;
    outcome.notice = outcome.error ?? 'These are suggestions from your canned responses and articles, not AI.';
    if (!outcome.canned.length && !outcome.articles.length) outcome.heading = 'No canned response or article matches this conversation.';
  }
  return { status, result: submission.reply() as SubmissionResult<string[]>, ai: outcome };
}
