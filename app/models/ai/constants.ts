/** What the browser may import (no zod): the calls, the rewrite styles and the messages. */

/** The four calls of section 7, by the inbox's channel: email replies and chat replies. */
export const AI_CALLS = ['help-me-write', 'modify-email-reply', 'chat-reply-ai', 'modify-chat-reply'] as const;
export type AiCall = (typeof AI_CALLS)[number];

export const REWRITE_STYLES = [
  { value: 'shorter', label: 'Shorter' },
  { value: 'friendlier', label: 'Friendlier' },
  { value: 'formal', label: 'More formal' },
  { value: 'grammar', label: 'Fix grammar' },
  { value: 'translate', label: 'Translate' },
] as const;
export type RewriteStyle = (typeof REWRITE_STYLES)[number]['value'];

export const AI_INSTRUCTION_REQUIRED = 'Say in a few words what the reply should say';
export const AI_TEXT_REQUIRED = 'Write a reply first: the AI rewrites what is in the box';
export const AI_LANGUAGE_REQUIRED = 'Name the language to translate into';

