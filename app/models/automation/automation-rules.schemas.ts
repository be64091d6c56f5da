/**
 * The inbox automation rule form (Settings → Automations → Automation Rules), section 5 "Automation rule". The
 * stored shape and the judging of one condition or action are rule-types.ts's, shared with the workflows.
 */
import { z } from 'zod';
import { ACTION_REQUIRED, INBOX_RULE_EVENTS, RULE_CONDITION_FIELDS, RuleActionSchema, RuleConditionSchema, type ActionType } from './rule-types';
import {
  RULE_NAME_MIN,
  RULE_NAME_MAX,
  RULE_DESCRIPTION_MAX,
  RULE_ROWS_MAX,
  RULE_NAME_REQUIRED,
  RULE_NAME_TOO_LONG,
  RULE_DESCRIPTION_TOO_LONG,
  RULE_EVENT_REQUIRED,
  SOURCES_REQUIRED,
  SOURCE_INVALID,
  SOURCE_EMPTY,
  SOURCE_TYPE_REQUIRED,
  SOURCE_TYPE_INVALID,
  CONDITION_OP_NOT_ALLOWED,
  TOO_MANY_ROWS,
  SOURCE_TYPES_BY_EVENT,
  opsForField,
  actionsForEvent,
  actionNotOfferedMessage,
} from './automation-rules-constants';
export * from './automation-rules-constants';

const emptyToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);

/** One source: an inbox id. Empty and malformed entries have their own messages. */
// z.unknown, not z.string: conform turns an empty string field into undefined, and this must still say "empty".
const SourceSchema = z
  .unknown()
  .superRefine((v, ctx) => {
    const s = typeof v === 'string' ? v.trim() : '';
    if (s === '') ctx.addIssue({ code: 'custom', message: SOURCE_EMPTY });
    else if (!/^\d{1,10}$/.test(s) || Number(s) < 1 || Number(s) > 2_147_483_647) ctx.addIssue({ code: 'custom', message: SOURCE_INVALID });
  })
  .transform((v) => String(v).trim());

export const AutomationRuleSchema = z
  .object({
    name: z.string({ error: RULE_NAME_REQUIRED }).trim().min(RULE_NAME_MIN, RULE_NAME_REQUIRED).max(RULE_NAME_MAX, RULE_NAME_TOO_LONG),
    description: z.string().trim().max(RULE_DESCRIPTION_MAX, RULE_DESCRIPTION_TOO_LONG).optional().default(''),
    event: z.preprocess(emptyToUndefined, z.enum(INBOX_RULE_EVENTS, { error: RULE_EVENT_REQUIRED })),
    sourceType: z.preprocess(emptyToUndefined, z.string().optional()),
    // Kept as typed (strings) so that the message fits the entry; turned into numbers by automationRuleInput.
    sources: z.array(SourceSchema).max(200).default([]),
    conditionOperator: z.enum(['and', 'or']).default('and'),
    conditions: z.array(RuleConditionSchema).max(RULE_ROWS_MAX, TOO_MANY_ROWS).default([]),
    actions: z.array(RuleActionSchema).max(RULE_ROWS_MAX, TOO_MANY_ROWS).default([]),
    isActive: z.boolean().default(false),
  })
  .superRefine(
    (v, ctx) => {
      // Runs even when rows have their own errors (`when`), so that one submission shows every message: read defensively.
      const value = (v ?? {}) as Partial<typeof v>;
      const event = value.event && (INBOX_RULE_EVENTS as readonly string[]).includes(value.event) ? value.event : undefined;
      if (event) {
        if (!Array.isArray(value.sources) || value.sources.length === 0)
          ctx.addIssue({
            code: 'custom',
            path: ['sources'],
            message: SOURCES_REQUIRED,
          });
        const allowed = SOURCE_TYPES_BY_EVENT[event];
        if (event === 'survey_received' && !value.sourceType)
          ctx.addIssue({
            code: 'custom',
            path: ['sourceType'],
            message: SOURCE_TYPE_REQUIRED,
          });
        else if (value.sourceType && !allowed.includes(value.sourceType))
          ctx.addIssue({
            code: 'custom',
            path: ['sourceType'],
            message: SOURCE_TYPE_INVALID,
          });
      }
      const conditions = Array.isArray(value.conditions) ? value.conditions : [];
      conditions.forEach((c, i) => {
        if (!c || typeof c !== 'object' || !c.field) return;
        if (!(RULE_CONDITION_FIELDS as readonly string[]).includes(c.field)) {
          ctx.addIssue({
            code: 'custom',
            path: ['conditions', i, 'field'],
            message: 'Condition must be specified',
          });
        } else if (c.op && !(opsForField(c.field) as readonly string[]).includes(c.op)) {
          ctx.addIssue({
            code: 'custom',
            path: ['conditions', i, 'op'],
            message: CONDITION_OP_NOT_ALLOWED,
          });
        }
      });
      const actions = Array.isArray(value.actions) ? value.actions : [];
      if (actions.length === 0)
        ctx.addIssue({
          code: 'custom',
          path: ['actions'],
          message: ACTION_REQUIRED,
        });
      if (!event) return;
      actions.forEach((a, i) => {
        const type = a && typeof a === 'object' ? (a as { type?: string }).type : undefined;
        if (type && !(actionsForEvent(event) as readonly string[]).includes(type)) {
          ctx.addIssue({
            code: 'custom',
            path: ['actions', i, 'type'],
            message: actionNotOfferedMessage(type as ActionType, event),
          });
        }
      });
    },
    { when: () => true },
  );
export type AutomationRuleForm = z.output<typeof AutomationRuleSchema>;

export type AutomationRuleInput = Omit<AutomationRuleForm, 'sources' | 'sourceType'> & { sources: number[]; sourceType: string | null };

/** From the parsed form to what is stored. */
export function automationRuleInput(form: AutomationRuleForm): AutomationRuleInput {
  return {
    ...form,
    sourceType: form.sourceType ?? null,
    sources: [...new Set(form.sources.map(Number))],
  };
}

type StoredRule = {
  name: string;
  description: string;
  event: string;
  sourceType: string | null;
  sources: number[];
  conditionOperator: 'and' | 'or';
  conditions: { field: string; op: string; value: string }[];
  actions: Record<string, unknown>[];
  isActive: boolean;
};

/** One stored action as the form holds it: every value a string (tags a list of strings). */
type ActionFormValues = {
  type: string;
  userId?: string;
  tagIds?: string[];
  note?: string;
  status?: string;
  priority?: string;
  inboxId?: string;
  companyId?: string;
  title?: string;
  description?: string;
};
function actionFormValues(a: Record<string, unknown>): ActionFormValues {
  const out: ActionFormValues = { type: String(a.type ?? '') };
  for (const k of ['userId', 'note', 'status', 'priority', 'inboxId', 'companyId', 'title', 'description'] as const)
    if (a[k] !== undefined && a[k] !== null) out[k] = String(a[k]);
  if (Array.isArray(a.tagIds)) out.tagIds = a.tagIds.map(String);
  return out;
}

/** The form's starting values: a stored rule, or a new one on conversation_created with no actions yet. */
export function automationRuleFormDefaults(rule: StoredRule | null) {
  return {
    name: rule?.name ?? '',
    description: rule?.description ?? '',
    event: rule?.event ?? 'conversation_created',
    sourceType: rule?.sourceType ?? '',
    sources: (rule?.sources ?? []).map(String),
    conditionOperator: rule?.conditionOperator ?? 'and',
    conditions: rule?.conditions ?? [],
    actions: (rule?.actions ?? []).map(actionFormValues),
    isActive: rule?.isActive ?? true,
  };
}
