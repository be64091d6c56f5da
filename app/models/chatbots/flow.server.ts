import { z } from 'zod';
import {
  COLLECT_FIELDS,
  HOURS_CONDITIONS,
  MAX_CHOICES,
  MAX_STEPS,
  STEP_LABELS,
  STEP_TYPES,
  VISITOR_KINDS,
  type ChatbotStep,
  type StepType,
} from './constants';

/**
 * The chatbot builder's schemas and the flow check (ADR 075). Every save goes through checkFlow: a flow whose steps
 * point nowhere, or that loops without ever waiting for the visitor, is refused with a message naming the step.
 */

export class ChatbotFlowError extends Error {
  status = 400;
}

const stepText = (label: string) =>
  z
    .string({ error: `${label} is not allowed to be empty` })
    .trim()
    .min(1, `${label} is not allowed to be empty`)
    .max(1000, `${label} must be at most 1000 characters`);
const next = z.string().trim().max(20).nullish().transform((v) => v || null);
const id = z.string().regex(/^s[0-9]{1,4}$/);

export const StepSchema = z.discriminatedUnion('type', [
  z.object({ id, type: z.literal('message'), text: stepText('Message'), next }),
  z.object({
    id,
    type: z.literal('question'),
    text: stepText('Question'),
    choices: z
      .array(z.object({ label: z.string().trim().min(1).max(40, 'A button label must be at most 40 characters'), next }))
      .min(1, 'A question needs at least one button')
      .max(MAX_CHOICES),
    next,
  }),
  z.object({ id, type: z.literal('collect'), text: stepText('Prompt'), field: z.enum(COLLECT_FIELDS), next }),
  z.object({ id, type: z.literal('search'), text: stepText('Prompt'), next }),
  z.object({
    id,
    type: z.literal('branch'),
    rules: z.array(z.object({ contains: z.string().trim().min(1).max(100), next })).min(1, 'A branch needs at least one rule').max(MAX_CHOICES),
    next,
  }),
  z.object({ id, type: z.literal('hours'), open: next, closed: next }),
  z.object({
    id,
    type: z.literal('handover'),
    text: stepText('Message'),
    teamId: z.number().int().positive().nullable(),
    userId: z.number().int().positive().nullable(),
  }),
  z.object({ id, type: z.literal('close'), text: stepText('Message') }),
  z.object({ id, type: z.literal('meeting'), text: stepText('Message'), meetingId: z.number().int().positive().nullable(), next }),
]);

/** The steps a step can go to, in order. */
export function targetsOf(step: ChatbotStep): (string | null)[] {
  switch (step.type) {
    case 'question':
      return [...step.choices.map((c) => c.next), step.next];
    case 'branch':
      return [...step.rules.map((r) => r.next), step.next];
    case 'hours':
      return [step.open, step.closed];
    case 'handover':
    case 'close':
      return [];
    default:
      return [step.next];
  }
}

/** Steps that wait for the visitor before going on: a loop must pass through one. */
const WAITS: StepType[] = ['question', 'collect', 'search'];

const name = (steps: ChatbotStep[], id: string) => {
  const i = steps.findIndex((s) => s.id === id);
  return `Step ${i + 1} (${STEP_LABELS[steps[i].type]})`;
};

/** Parses and checks a whole flow; throws ChatbotFlowError with a message a builder user can act on. */
export function checkFlow(input: unknown): ChatbotStep[] {
  if (!Array.isArray(input)) throw new ChatbotFlowError('The flow must be a list of steps');
  if (input.length > MAX_STEPS) throw new ChatbotFlowError(`A bot has at most ${MAX_STEPS} steps`);
  const steps: ChatbotStep[] = [];
  input.forEach((raw, i) => {
    const parsed = StepSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const known = raw && typeof raw === 'object' && STEP_TYPES.includes((raw as { type?: StepType }).type as StepType);
      throw new ChatbotFlowError(`Step ${i + 1}${known ? ` (${STEP_LABELS[(raw as { type: StepType }).type]})` : ''}: ${known ? issue.message : 'unknown step type'}`);
    }
    steps.push(parsed.data as ChatbotStep);
  });
  const ids = new Set<string>();
  for (const s of steps) {
    if (ids.has(s.id)) throw new ChatbotFlowError(`${name(steps, s.id)} repeats the id ${s.id}`);
    ids.add(s.id);
  }
  for (const s of steps) {
    for (const t of targetsOf(s)) {
      if (t !== null && !ids.has(t)) throw new ChatbotFlowError(`${name(steps, s.id)} goes to a step that does not exist`);
    }
  }
  // A loop of steps that never wait would talk to itself forever.
  const byId = new Map(steps.map((s) => [s.id, s]));
  const state = new Map<string, 1 | 2>();
  const visit = (id: string, path: string[]): void => {
    const s = byId.get(id)!;
    if (WAITS.includes(s.type)) return;
    if (state.get(id) === 2) return;
    if (state.get(id) === 1) {
      const loop = path.slice(path.indexOf(id));
      throw new ChatbotFlowError(`${loop.map((x) => name(steps, x)).join(' → ')} loop without waiting for the visitor`);
    }
    state.set(id, 1);
    for (const t of targetsOf(s)) if (t) visit(t, [...path, id]);
    state.set(id, 2);
  };
  for (const s of steps) visit(s.id, []);
  return steps;
}

export const ChatbotSettingsSchema = z.object({
  name: z
    .string({ error: 'Name is not allowed to be empty' })
    .trim()
    .min(2, 'Length must be at least 2 characters')
    .max(60, 'Length must be at most 60 characters'),
  enabled: z.literal('on').optional().transform(Boolean),
  inboxIds: z.array(z.coerce.number().int().positive()).max(50).optional().default([]),
  priority: z.coerce.number({ error: 'Priority must be a number' }).int('Priority must be a whole number').min(0).max(100, 'Priority must be at most 100').default(0),
  pageUrl: z.string().trim().max(300, 'Length must be at most 300 characters').optional().default(''),
  visitor: z.enum(VISITOR_KINDS).default('any'),
  hours: z.enum(HOURS_CONDITIONS).default('any'),
});

export const CreateChatbotSchema = ChatbotSettingsSchema.pick({ name: true });

/** One step's form in the no-JS builder: flat fields, choices as choice{n}Label / choice{n}Next. */
export const StepFormSchema = z.object({
  stepId: id,
  text: z.string().max(1000).optional(),
  field: z.enum(COLLECT_FIELDS).optional(),
  next: z.string().max(20).optional(),
  open: z.string().max(20).optional(),
  closed: z.string().max(20).optional(),
  teamId: z.coerce.number().int().positive().optional(),
  userId: z.coerce.number().int().positive().optional(),
  meetingId: z.coerce.number().int().positive().optional(),
  ...Object.fromEntries(
    Array.from({ length: MAX_CHOICES }, (_, i) => [
      [`choice${i}Label`, z.string().max(100).optional()],
      [`choice${i}Next`, z.string().max(20).optional()],
    ]).flat(),
  ),
});

export const AddStepSchema = z.object({ type: z.enum(STEP_TYPES, { error: 'Choose a kind of step' }) });
