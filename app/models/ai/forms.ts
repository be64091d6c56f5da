import { z } from 'zod';
import { AI_LANGUAGE_REQUIRED, AI_TEXT_REQUIRED, REWRITE_STYLES, type RewriteStyle } from './constants';
export * from './constants';

/**
 * One schema for both buttons of the reply box: "Write with AI" (the instruction; for chat it may be empty: the
 * suggestion comes from the conversation) and "Rewrite" (the reply box's text, a style, a language to translate to).
 */
export const AiHelpSchema = z
  .object({
    intent: z.enum(['ai-write', 'ai-rewrite']),
    text: z.string().trim().max(20_000, 'The reply is too long to rewrite (20,000 characters at most)').optional(),
    aiInstruction: z.string().trim().max(500, 'Keep the instruction under 500 characters').optional(),
    aiStyle: z.enum(REWRITE_STYLES.map((s) => s.value) as [RewriteStyle, ...RewriteStyle[]], { error: 'Choose how to rewrite the reply' }).default('shorter'),
    aiLanguage: z.string().trim().max(40, 'Name the language in under 40 characters').optional(),
  })
  .superRefine((v, ctx) => {
    if (v.intent === 'ai-rewrite' && !v.text) ctx.addIssue({ code: 'custom', path: ['text'], message: AI_TEXT_REQUIRED });
    if (v.intent === 'ai-rewrite' && v.aiStyle === 'translate' && !v.aiLanguage) ctx.addIssue({ code: 'custom', path: ['aiLanguage'], message: AI_LANGUAGE_REQUIRED });
  });
export type AiHelpInput = z.infer<typeof AiHelpSchema>;

/** Settings → AI Help. An empty key keeps the stored one; "Remove the key" clears it. */
export const AiSettingsSchema = z.object({
  baseUrl: z
    .url({ protocol: /^https?$/, error: 'Enter the server address, e.g. https://api.openai.com/v1' })
    .max(500, 'The address is too long')
    .optional(),
  model: z.string().trim().max(200, 'The model name is too long').optional(),
  apiKey: z.string().trim().max(500, 'The key is too long').optional(),
  removeKey: z.literal('on').optional(),
  monthlyTokenCap: z.coerce
    .number({ error: 'Enter a number of tokens' })
    .int('Enter a whole number of tokens')
    .min(0, 'The cap cannot be negative')
    .max(1_000_000_000, 'The cap is too high')
    .optional(),
});
export type AiSettingsInput = z.infer<typeof AiSettingsSchema>;
