/**
 * The workflow forms (pure, shared by the browser and the server): the create dialog (section 5 "Workflow
 * dialog") and the builder (trigger event, trigger conditions, filters, actions — section 4). One condition,
 * filter or action is judged by rule-types.ts's schemas, with section 5 "Automation rule" messages.
 */
import { z } from 'zod';
import {
  ACTION_REQUIRED,
  CONDITION_FIELD_REQUIRED,
  RuleActionSchema,
  RuleConditionSchema,
  RuleFilterSchema,
  TRIGGER_CONDITIONS,
  WORKFLOW_EVENTS,
  type ActionType,
} from './rule-types';
import { MAX_ROW_ID } from '../../utils/route-id';
import {
  WORKFLOW_NAME_MAX,
  WORKFLOW_DESCRIPTION_MAX,
  WORKFLOW_ROWS_MAX,
  WORKFLOW_NAME_REQUIRED,
  WORKFLOW_NAME_TOO_LONG,
  WORKFLOW_DESCRIPTION_TOO_LONG,
  WORKFLOW_EVENT_REQUIRED,
  TOO_MANY_ROWS,
  actionNotOfferedMessage,
  isActionOffered,
} from './workflows-constants';
export * from './workflows-constants';

const name = z.string({ error: WORKFLOW_NAME_REQUIRED }).trim().min(1, WORKFLOW_NAME_REQUIRED).max(WORKFLOW_NAME_MAX, WORKFLOW_NAME_TOO_LONG);
const description = z.string().trim().max(WORKFLOW_DESCRIPTION_MAX, WORKFLOW_DESCRIPTION_TOO_LONG).optional().default('');

/** Section 5 "Workflow dialog": name required, at most 20; description at most 150. */
export const WorkflowDialogSchema = z.object({ name, description });
export type WorkflowDialogInput = z.output<typeof WorkflowDialogSchema>;

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

/** The switch of the list and the builder: "Status Change" confirmation, then this. */
export const WorkflowStatusSchema = z.object({
  id: z.coerce.number().int().positive().max(MAX_ROW_ID),
  isActive: z.enum(['true', 'false']).transform((v) => v === 'true'),
});
