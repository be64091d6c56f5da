import { getConversation } from '../inbox/conversations.server';
import { listThread } from '../inbox/messages.server';
import { AiServerError, streamChatCompletion, type ChatMessage } from './client.server';
import { AI_INSTRUCTION_REQUIRED, type AiCall, type AiHelpInput, type RewriteStyle } from './forms';
import { findRelevantArticles, findRelevantCanned, type RelevantArticle, type RelevantCanned } from './retrieval.server';
import { monthlyUsage, recordAiRequest, resolveAiServer, type AiServer } from './settings.server';
import { getConfig } from '../../utils/env.server';

/**
 * AI reply help (ADR 081): the four calls of section 7 on one path. The conversation and the best-matching
 * knowledge-base articles and canned responses (the existing full-text indexes) go into the prompt; the answer
 * cites the articles it used. Without a server the same buttons give those matches as suggestions. Nothing here
 * sends: the text goes into the agent's reply box.
 */

export type SuggestedArticle = Omit<RelevantArticle, 'excerpt'> & { url: string };
export type AiHelpPlan =
  | { kind: 'suggestions'; call: AiCall; canned: RelevantCanned[]; articles: SuggestedArticle[] }
  | { kind: 'ai'; call: AiCall; server: AiServer; messages: ChatMessage[]; articles: SuggestedArticle[]; canned: RelevantCanned[] };

/** Bad input the schema cannot see (it depends on the conversation): shown under its field. */
export class AiInputError extends Error {
  constructor(
    public readonly field: 'aiInstruction' | 'text',
    message: string,
  ) {
    super(message);
  }
}

/** The account's monthly allowance is used up: said plainly, with when it renews. */
export class AiCapReachedError extends Error {}

/** Characters of conversation the prompt carries (newest messages first), and of any one message. */
const CONVERSATION_BUDGET = 6000;
const MESSAGE_BUDGET = 1500;

const STYLE_TASKS: Record<Exclude<RewriteStyle, 'translate'>, string> = {
  shorter: 'Make it shorter and to the point',
  friendlier: 'Make it warmer and friendlier',
  formal: 'Make it more formal and polite',
  grammar: 'Fix spelling, grammar and punctuation only; change nothing else',
};

export function callFor(channelType: string, intent: AiHelpInput['intent']): AiCall {
  const email = channelType === 'email';
  if (intent === 'ai-write') return email ? 'help-me-write' : 'chat-reply-ai';
  return email ? 'modify-email-reply' : 'modify-chat-reply';
}

export async function planAiHelp(opts: { accountId: number; conversationId: number; input: AiHelpInput; siteUrl: string }): Promise<AiHelpPlan | null> {
  const found = await getConversation({ accountId: opts.accountId, id: opts.conversationId });
  if (!found) return null;
  const { input } = opts;
  const call = callFor(found.inbox.channelType, input.intent);
  if (call === 'help-me-write' && !input.aiInstruction) throw new AiInputError('aiInstruction', AI_INSTRUCTION_REQUIRED);
  const thread = await listThread({ accountId: opts.accountId, conversationId: opts.conversationId, limit: 20 });
  // Internal notes stay out: what the model reads may surface in a reply to the customer.
  const said = thread.messages.filter((m) => m.message.kind !== 'note');
  const latestIncoming = said
    .filter((m) => m.message.kind === 'incoming')
    .slice(-3)
    .map((m) => m.message.text ?? '')
    .join(' ');
  const searchText = [input.aiInstruction, input.text, found.conversation.subject, latestIncoming].filter(Boolean).join(' ').slice(0, 2000);
  const [canned, found3, server] = await Promise.all([
    findRelevantCanned({ accountId: opts.accountId, text: searchText }),
    findRelevantArticles({ accountId: opts.accountId, text: searchText }),
    resolveAiServer({ accountId: opts.accountId }),
  ]);
  const articles = found3.map(({ excerpt: _excerpt, ...a }) => ({ ...a, url: `${opts.siteUrl}${a.path}` }));
  if (!server) return { kind: 'suggestions', call, canned, articles };

  const transcript: string[] = [];
  let used = 0;
  for (const m of [...said].reverse()) {
    const who =
      m.message.kind === 'incoming' ? `Customer${m.contactFirstName ? ` (${m.contactFirstName})` : ''}` : m.botName ? 'Bot' : `Agent${m.userFirstName ? ` (${m.userFirstName})` : ''}`;
    const text = (m.message.text ?? '').trim().slice(0, MESSAGE_BUDGET);
    if (!text) continue;
    if (used + text.length > CONVERSATION_BUDGET) break;
    used += text.length;
    transcript.unshift(`${who}: ${text}`);
  }
  const sources = found3.map((a, i) => `[${i + 1}] ${a.title} (${opts.siteUrl}${a.path})\n${a.excerpt}`).join('\n\n');
  const cannedText = canned.map((r) => `- ${r.name}: ${r.message.slice(0, 800)}`).join('\n');
  const email = call === 'help-me-write' || call === 'modify-email-reply';
  let task: string;
  if (call === 'help-me-write') task = `Write an email reply to the customer's latest message, following the agent's instruction: "${input.aiInstruction}".`;
  else if (call === 'chat-reply-ai')
    task = `Suggest the agent's next chat message to the customer: short and friendly, one to three sentences.${input.aiInstruction ? ` The agent's instruction: "${input.aiInstruction}".` : ''}`;
  else {
    const how = input.aiStyle === 'translate' ? `Translate it into ${input.aiLanguage}` : STYLE_TASKS[input.aiStyle];
    task = `Rewrite the agent's draft ${email ? 'email' : 'chat'} reply below. ${how}. Keep its meaning, names and links. Answer with the rewritten text only.\n\nDraft:\n"""\n${input.text}\n"""`;
  }
  const messages: ChatMessage[] = [
    {
      role: 'system',
      content:
        'You help a customer-support agent write replies. Answer with the reply text only, in plain text, ready for the agent to review and send: no subject line, no commentary. ' +
        'Use the knowledge-base articles and canned responses below when they answer the question, and do not invent policies, prices, dates or promises that are in neither them nor the conversation. ' +
        'When you use an article, mark it with its number in square brackets, e.g. [1].',
    },
    {
      role: 'user',
      content: [
        sources ? `Knowledge-base articles:\n${sources}` : 'Knowledge-base articles: none match.',
        cannedText ? `The team's canned responses:\n${cannedText}` : '',
        transcript.length ? `Conversation, oldest first (subject: ${found.conversation.subject || 'none'}):\n${transcript.join('\n')}` : 'The conversation has no messages yet.',
        `Task: ${task}`,
      ]
        .filter(Boolean)
        .join('\n\n'),
    },
  ];
  return { kind: 'ai', call, server, messages, articles, canned };
}

/** The articles the answer cites by number, as a list of links the agent can keep or cut. */
export function sourcesBlock(text: string, articles: SuggestedArticle[]) {
  const cited = new Set([...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])));
  const lines = articles.map((a, i) => (cited.has(i + 1) ? `[${i + 1}] ${a.title}: ${a.url}` : null)).filter(Boolean);
  return lines.length ? `\n\nSources:\n${lines.join('\n')}` : '';
}

/**
 * Runs a planned call: checks the monthly cap, streams the answer (then the cited sources), and logs the request
 * with its token counts, never its text. Throws AiCapReachedError or AiServerError before the first piece.
 */
export async function* runAiHelp(opts: { accountId: number; userId: number; conversationId: number; plan: Extract<AiHelpPlan, { kind: 'ai' }>; signal?: AbortSignal }) {
  const { plan } = opts;
  const base = { accountId: opts.accountId, userId: opts.userId, conversationId: opts.conversationId, call: plan.call, model: plan.server.model };
  const usage = await monthlyUsage({ accountId: opts.accountId });
  if (usage.tokens >= usage.cap) {
    await recordAiRequest({ ...base, status: 'capped' });
    const now = new Date();
    const renews = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', timeZone: 'UTC' });
    throw new AiCapReachedError(
      `This account has used its AI allowance for this month (${usage.tokens.toLocaleString('en')} of ${usage.cap.toLocaleString('en')} tokens). It renews on ${renews}; an administrator can raise it in Settings → AI Help. The suggestions below do not use AI.`,
    );
  }
  const started = Date.now();
  let text = '';
  let tokens: { promptTokens: number; completionTokens: number } | null = null;
  try {
    for await (const chunk of streamChatCompletion({ ...plan.server, messages: plan.messages, timeoutMs: getConfig().ai.timeoutMs, signal: opts.signal })) {
      if ('usage' in chunk) tokens = chunk.usage;
      else {
        text += chunk.delta;
        yield chunk.delta;
      }
    }
  } catch (err) {
    const e = err instanceof AiServerError ? err : new AiServerError('network', 'The AI server could not be reached.');
    await recordAiRequest({ ...base, status: 'error', durationMs: Date.now() - started, error: e.kind, promptTokens: tokens?.promptTokens, completionTokens: tokens?.completionTokens });
    throw e;
  }
  // A server that does not report usage is counted by length (about four characters a token), so the cap holds.
  const estimated = tokens ?? { promptTokens: Math.ceil(plan.messages.reduce((n, m) => n + m.content.length, 0) / 4), completionTokens: Math.ceil(text.length / 4) };
  await recordAiRequest({ ...base, status: 'ok', durationMs: Date.now() - started, ...estimated });
  const sources = sourcesBlock(text, plan.articles);
  if (sources) yield sources;
}

/** The whole answer at once, for the page without JavaScript. */
export async function completeAiHelp(opts: Parameters<typeof runAiHelp>[0]) {
  let text = '';
  for await (const piece of runAiHelp(opts)) text += piece;
  return text.trim();
}

export type { RelevantCanned };
