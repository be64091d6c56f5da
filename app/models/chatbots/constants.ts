/**
 * A chatbot's flow (ADR 075): plain data shared by the builder screens and the server. Screens import this module,
 * so it must never import zod (ADR 027); the schemas live in flow.server.ts.
 */

export const STEP_TYPES = ['message', 'question', 'collect', 'search', 'branch', 'hours', 'handover', 'close', 'meeting'] as const;
export type StepType = (typeof STEP_TYPES)[number];
export const STEP_LABELS: Record<StepType, string> = {
  message: 'Send a message',
  question: 'Ask a question with buttons',
  collect: 'Collect a detail',
  search: 'Search the knowledge base',
  branch: 'Branch on the answer',
  hours: 'Branch on business hours',
  handover: 'Hand over to the team',
  close: 'Close the conversation',
  meeting: 'Offer a meeting booking link',
};

export const COLLECT_FIELDS = ['email', 'name', 'phone'] as const;
export type CollectField = (typeof COLLECT_FIELDS)[number];

/** The most buttons (or branch rules) one step has: the no-JS builder shows this many rows. */
export const MAX_CHOICES = 4;
export const MAX_STEPS = 50;

export type Choice = { label: string; next: string | null };
export type Rule = { contains: string; next: string | null };

/** `next: null` ends the bot's part (the conversation waits for the team, as after a hand-over without assignee). */
export type ChatbotStep =
  | { id: string; type: 'message'; text: string; next: string | null }
  | { id: string; type: 'question'; text: string; choices: Choice[]; next: string | null }
  | { id: string; type: 'collect'; text: string; field: CollectField; next: string | null }
  | { id: string; type: 'search'; text: string; next: string | null }
  | { id: string; type: 'branch'; rules: Rule[]; next: string | null }
  | { id: string; type: 'hours'; open: string | null; closed: string | null }
  | { id: string; type: 'handover'; text: string; teamId: number | null; userId: number | null }
  | { id: string; type: 'close'; text: string }
  /** Sends the text and a meeting's booking link for this conversation (the default meeting when meetingId is null; ADR 088). */
  | { id: string; type: 'meeting'; text: string; meetingId: number | null; next: string | null };

export const VISITOR_KINDS = ['any', 'new', 'returning'] as const;
export const HOURS_CONDITIONS = ['any', 'open', 'closed'] as const;
export type ChatbotConditions = {
  /** The page URL contains this text (empty: any page). */
  pageUrl: string;
  visitor: (typeof VISITOR_KINDS)[number];
  hours: (typeof HOURS_CONDITIONS)[number];
};
export const DEFAULT_CONDITIONS: ChatbotConditions = { pageUrl: '', visitor: 'any', hours: 'any' };

export const RUN_STATUSES = ['running', 'completed', 'handed_over', 'stopped'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** What a visitor types to leave the bot for a person at any step. */
export const HUMAN_WORDS = /\b(human|agent|person|someone|operator|real people|talk to (a|an|the) (team|representative))\b/i;
