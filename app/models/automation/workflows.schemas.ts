/**
 * The workflow forms (pure, shared by the browser and the server): the create dialog (section 5 "Workflow
 * dialog") and the builder (trigger event, trigger conditions, filters, actions — section 4). One condition,
 * filter or action is judged by rule-types.ts's schemas, with section 5 "Automation rule" messages.
 */
import { z } from 'zod';
import {
  ACTION_LABELS,
  ACTION_REQUIRED,
  ACTIONS_BY_EVENT,
  CONDITION_FIELD_REQUIRED,
  RuleActionSchema,
  RuleConditionSchema,
  RuleFilterSchema,
  TRIGGER_CONDITIONS,
  WORKFLOW_EVENT_LABELS,
  WORKFLOW_EVENTS,
  type ActionType,
  type WorkflowEvent,
} from './rule-types';
import { MAX_ROW_ID } from '../../utils/route-id';

export const WORKFLOW_NAME_MAX = 20;
export const WORKFLOW_DESCRIPTION_MAX = 150;
/** Rows a builder section may hold: enough for any real rule, few enough to bound the work of one event. */
export const WORKFLOW_ROWS_MAX = 20;

export const WORKFLOW_NAME_REQUIRED = 'Name is not allowed to be empty';
export const WORKFLOW_NAME_TOO_LONG = `Length must be less than or equal to ${WORKFLOW_NAME_MAX} characters`;
export const WORKFLOW_DESCRIPTION_TOO_LONG = `Length must be less than or equal to ${WORKFLOW_DESCRIPTION_MAX} characters`;
export const WORKFLOW_EVENT_REQUIRED = 'Event must be specified';
export const TOO_MANY_ROWS = `At most ${WORKFLOW_ROWS_MAX} rows`;
/** The spec says creation "is blocked when the limit is reached" without wording it; this is in the voice of its plan message. */
export const workflowLimitMessage = (limit: number) =>
  `Your current plan allows up to ${limit} workflow${limit === 1 ? '' : 's'}. Please contact your account administrator.`;
export const actionNotOfferedMessage = (type: ActionType, event: WorkflowEvent) => `${ACTION_LABELS[type]} is not offered for ${WORKFLOW_EVENT_LABELS[event]}`;

const name = z.string({ error: WORKFLOW_NAME_REQUIRED }).trim().min(1, WORKFLOW_NAME_REQUIRED).max(WORKFLOW_NAME_MAX, WORKFLOW_NAME_TOO_LONG);
const description = z.string().trim().max(WORKFLOW_DESCRIPTION_MAX, WORKFLOW_DESCRIPTION_TOO_LONG).optional().default('');

/** Section 5 "Workflow dialog": name required, at most 20; description at most 150. */
export const WorkflowDialogSchema = z.object({ name, description });
export type WorkflowDialogInput = z.output<typeof WorkflowDialogSchema>;

export function isActionOffered(event: string, type: string) {
  return (WORKFLOW_EVENTS as readonly string[]).includes(event) && (ACTIONS_BY_EVENT[event as WorkflowEvent] as readonly string[]).includes(type);
}

/**
 * The whole rule as the builder saves it. Trigger conditions are the spec's seven; every action must be one the
 * trigger event offers (a changed event flags the actions it does not offer, on their type). The cross checks run
 * even when a row has its own errors, so that one submission shows every message.
 */
export const WorkflowBuilderSchema = z
  .object({
    name,
    description,
    event: z.enum(WORKFLOW_EVENTS, { error: WORKFLOW_EVENT_REQUIRED }),
    conditionOperator: z.enum(['and', 'or']).default('and'),
    conditions: z.array(RuleConditionSchema).max(WORKFLOW_ROWS_MAX, TOO_MANY_ROWS).default([]),
    filters: z.array(RuleFilterSchema).max(WORKFLOW_ROWS_MAX, TOO_MANY_ROWS).default([]),
    actions: z.array(RuleActionSchema).max(WORKFLOW_ROWS_MAX, TOO_MANY_ROWS).default([]),
  })
  .superRefine(
    (v, ctx) => {
      const value = (v ?? {}) as Partial<typeof v>;
      const conditions = Array.isArray(value.conditions) ? value.conditions : [];
      conditions.forEach((c, i) => {
        if (c && typeof c === 'object' && c.field && !(TRIGGER_CONDITIONS as readonly string[]).includes(c.field)) {
          ctx.addIssue({
            code: 'custom',
            path: ['conditions', i, 'field'],
            message: CONDITION_FIELD_REQUIRED,
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
      const event = value.event;
      if (!event || !(WORKFLOW_EVENTS as readonly string[]).includes(event)) return;
      actions.forEach((a, i) => {
        const type = a && typeof a === 'object' ? (a as { type?: string }).type : undefined;
        if (type && !isActionOffered(event, type))
          ctx.addIssue({
            code: 'custom',
            path: ['actions', i, 'type'],
            message: actionNotOfferedMessage(type as ActionType, event),
          });
      });
    },
    { when: () => true },
  );
export type WorkflowBuilderInput = z.output<typeof WorkflowBuilderSchema>;

/** Section 4: the confirmation before the switch. */
export const STATUS_CHANGE_TITLE = 'Status Change';
export const STATUS_CHANGE_TEXT = 'Are you sure you want to update status ?';

/** The switch of the list and the builder: "Status Change" confirmation, then this. */
export const WorkflowStatusSchema = z.object({
  id: z.coerce.number().int().positive().max(MAX_ROW_ID),
  isActive: z.enum(['true', 'false']).transform((v) => v === 'true'),
});
