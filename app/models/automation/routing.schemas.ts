import { z } from 'zod';
import { ROUTING_RULES, type RoutingRuleType, type RoutingSubrule } from '../../../db/schema/automation';
import type { ChannelType } from '../../../db/schema/inbox-constants';

/** Section 9: assignLimit 1 to 500 (empty: no limit). */
export const ASSIGN_LIMIT_MIN = 1;
export const ASSIGN_LIMIT_MAX = 500;
export const ROUTING_NAME_MAX = 50;
export const SUBRULE_VALUE_MAX = 500;
export const SUBRULES_MAX = 50;

export const ASSIGN_LIMIT_MESSAGE = `Assign limit must be a whole number from ${ASSIGN_LIMIT_MIN} to ${ASSIGN_LIMIT_MAX}`;
/** Section 5, word for word. */
export const SUBRULE_INCOMPLETE_MESSAGE = 'A URL subrule can be added only with a value, a condition and a user';
export const SUBRULE_NEEDED_MESSAGE = 'Add at least one URL subrule';
export const TEAM_NEEDED_MESSAGE = 'Team is not allowed to be empty';
export const INBOX_TAKEN_MESSAGE = 'This inbox already has a routing rule';
export const emptyMessage = (label: string) => `${label} is not allowed to be empty`;

export const RULE_LABELS: Record<RoutingRuleType, string> = {
  round_robin: 'Round Robin',
  active_agents: 'Active Agents',
  last_agent_assigned: 'Last Agent Assigned',
  team: 'Team',
  load_balancing: 'Load Balancing',
  url: 'URL',
};

export const SUBRULE_CONDITIONS = ['contains', 'equals', 'startsWith', 'endsWith'] as const satisfies readonly RoutingSubrule['condition'][];
export const CONDITION_LABELS: Record<RoutingSubrule['condition'], string> = {
  contains: 'Contains',
  equals: 'Equals',
  startsWith: 'Starts with',
  endsWith: 'Ends with',
};

/** Section 9: load_balancing for email inboxes only, url for web inboxes only; the other four everywhere. */
export function rulesForInbox(channelType: ChannelType | null | undefined): RoutingRuleType[] {
  return ROUTING_RULES.filter((r) => (r === 'load_balancing' ? channelType === 'email' : r === 'url' ? channelType === 'web' : true));
}

export function ruleNotOfferedMessage(rule: RoutingRuleType) {
  if (rule === 'load_balancing') return 'Load Balancing is available for email inboxes only';
  if (rule === 'url') return 'URL routing is available for web inboxes only';
  return `${RULE_LABELS[rule]} is not available for this inbox`;
}

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
