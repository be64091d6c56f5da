import { z } from 'zod';
import { ROUTING_RULES, type RoutingRuleType, type RoutingSubrule } from '../../../db/schema/automation';
import {
  ASSIGN_LIMIT_MIN,
  ASSIGN_LIMIT_MAX,
  ROUTING_NAME_MAX,
  SUBRULE_VALUE_MAX,
  SUBRULES_MAX,
  ASSIGN_LIMIT_MESSAGE,
  SUBRULE_INCOMPLETE_MESSAGE,
  SUBRULE_NEEDED_MESSAGE,
  TEAM_NEEDED_MESSAGE,
  emptyMessage,
  SUBRULE_CONDITIONS,
} from './routing-constants';
export * from './routing-constants';

const SubruleSchema = z.object({
  value: z.string().trim().max(SUBRULE_VALUE_MAX, `Length must be less than or equal to ${SUBRULE_VALUE_MAX} characters`).optional(),
  condition: z.enum(SUBRULE_CONDITIONS).optional(),
  userId: z.number().int().positive().optional(),
});

/**
 * The routing form. The team select and the subrule table are always posted; only the chosen rule's part is
 * judged (and kept). Whether the rule suits the inbox is checked by the model, which knows the inbox's type.
 */
export const RoutingRuleSchema = z
  .object({
    name: z
      .string({ error: emptyMessage('Name') })
      .trim()
      .min(1, emptyMessage('Name'))
      .max(ROUTING_NAME_MAX, `Length must be less than or equal to ${ROUTING_NAME_MAX} characters`),
    inboxId: z
      .number({ error: emptyMessage('Inbox') })
      .int(emptyMessage('Inbox'))
      .positive(emptyMessage('Inbox')),
    rule: z.enum(ROUTING_RULES, { error: emptyMessage('Rule') }),
    assignLimit: z
      .number({ error: ASSIGN_LIMIT_MESSAGE })
      .int(ASSIGN_LIMIT_MESSAGE)
      .min(ASSIGN_LIMIT_MIN, ASSIGN_LIMIT_MESSAGE)
      .max(ASSIGN_LIMIT_MAX, ASSIGN_LIMIT_MESSAGE)
      .optional(),
    teamId: z.number().int().positive().optional(),
    subrules: z.array(SubruleSchema).max(SUBRULES_MAX).default([]),
  })
  .superRefine((value, ctx) => {
    if (value.rule === 'team' && !value.teamId)
      ctx.addIssue({
        code: 'custom',
        path: ['teamId'],
        message: TEAM_NEEDED_MESSAGE,
      });
    if (value.rule === 'url') {
      value.subrules.forEach((s, i) => {
        if (!s.value || !s.condition || !s.userId)
          ctx.addIssue({
            code: 'custom',
            path: ['subrules', i],
            message: SUBRULE_INCOMPLETE_MESSAGE,
          });
      });
      if (value.subrules.length === 0)
        ctx.addIssue({
          code: 'custom',
          path: ['subrules'],
          message: SUBRULE_NEEDED_MESSAGE,
        });
    }
  });
export type RoutingRuleForm = z.infer<typeof RoutingRuleSchema>;

export type RoutingRuleInput = {
  name: string;
  inboxId: number;
  rule: RoutingRuleType;
  assignLimit: number | null;
  teamId: number | null;
  subrules: RoutingSubrule[];
};

/** From the form to what is stored: the team only for the team rule, subrules only for the URL rule (which has no limit). */
export function routingRuleInput(form: RoutingRuleForm): RoutingRuleInput {
  return {
    name: form.name,
    inboxId: form.inboxId,
    rule: form.rule,
    assignLimit: form.rule === 'url' ? null : form.assignLimit ?? null,
    teamId: form.rule === 'team' ? form.teamId ?? null : null,
    subrules:
      form.rule === 'url'
        ? form.subrules
            .filter((s): s is RoutingSubrule => Boolean(s.value && s.condition && s.userId))
            .map((s) => ({
              value: s.value,
              condition: s.condition,
              userId: s.userId,
            }))
        : [],
  };
}

/** The form's starting values: the stored rule, or a round-robin rule without a limit. */
export function routingFormDefaults(rule: RoutingRuleInput | null, inboxId?: number | null) {
  return {
    name: rule?.name ?? '',
    inboxId: rule?.inboxId ?? inboxId ?? undefined,
    rule: rule?.rule ?? 'round_robin',
    assignLimit: rule?.assignLimit ?? undefined,
    teamId: rule?.teamId ?? undefined,
    subrules: rule?.subrules.length ? rule.subrules : [{ value: '', condition: 'contains' as const, userId: undefined }],
  };
}
