/** Plain values of the forms beside them (routing.schemas.ts), apart from the zod schemas so that screens can use them without shipping zod (ADR 027). */
import type { RoutingSubrule } from '../../../db/schema/automation';
import { ROUTING_RULES, type RoutingRuleType } from '../../../db/schema/automation-constants';
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
