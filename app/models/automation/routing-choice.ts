import type { RoutingRuleType, RoutingSubrule } from '../../../db/schema/automation';

/**
 * Which agent a routing rule gives a conversation to: a pure function, so that every rule and the limit can be
 * tested without a database. routing.server.ts gathers the candidates and applies the choice.
 */

/** An agent who could take the conversation. openCount: their open or pending conversations in the rule's inbox. */
export type RoutingCandidate = {
  userId: number;
  online: boolean;
  openCount: number;
};

export type RoutingChoiceInput = {
  rule: RoutingRuleType;
  /** Most open conversations an agent may hold in the inbox; null: no limit. */
  assignLimit: number | null;
  /** The account's agents (active users who may work conversations). */
  candidates: RoutingCandidate[];
  /** Round robin's cursor: the user who got the last conversation through this rule. */
  cursor: number | null;
  /** team: the members of the rule's team. */
  teamMemberIds?: number[];
  /** last_agent_assigned: the assignee of the contact's most recent earlier conversation. */
  lastAgentId?: number | null;
  /** url: the page the visitor was last seen on, and the rule's subrules. */
  pageUrl?: string | null;
  subrules?: RoutingSubrule[];
};

/** The chosen agent and the cursor to store (it moves only when round robin made the choice). */
export type RoutingChoice = { userId: number; cursor: number | null } | null;

export function hasRoom(candidate: RoutingCandidate, assignLimit: number | null) {
  return assignLimit === null || candidate.openCount < assignLimit;
}

/** The next agent after the cursor in user-id order, wrapping around, skipping agents at the limit. */
export function roundRobin(pool: RoutingCandidate[], cursor: number | null, assignLimit: number | null): RoutingChoice {
  const eligible = pool.filter((c) => hasRoom(c, assignLimit)).sort((a, b) => a.userId - b.userId);
  if (eligible.length === 0) return null;
  const next = (cursor === null ? undefined : eligible.find((c) => c.userId > cursor)) ?? eligible[0];
  return { userId: next.userId, cursor: next.userId };
}

/** A subrule's condition against a page URL; letters are compared without regard to case. */
export function urlMatches(subrule: RoutingSubrule, pageUrl: string) {
  const url = pageUrl.toLowerCase();
  const value = subrule.value.trim().toLowerCase();
  if (!value) return false;
  switch (subrule.condition) {
    case 'contains':
      return url.includes(value);
    case 'equals':
      return url === value;
    case 'startsWith':
      return url.startsWith(value);
    case 'endsWith':
      return url.endsWith(value);
    default:
      return false;
  }
}

export function chooseAgent(input: RoutingChoiceInput): RoutingChoice {
  const { assignLimit, candidates, cursor } = input;
  switch (input.rule) {
    case 'round_robin':
      return roundRobin(candidates, cursor, assignLimit);
    case 'active_agents':
      return roundRobin(
        candidates.filter((c) => c.online),
        cursor,
        assignLimit,
      );
    case 'last_agent_assigned': {
      const last = input.lastAgentId == null ? undefined : candidates.find((c) => c.userId === input.lastAgentId);
      if (last && last.online && hasRoom(last, assignLimit)) return { userId: last.userId, cursor };
      return roundRobin(candidates, cursor, assignLimit);
    }
    case 'team': {
      const members = new Set(input.teamMemberIds ?? []);
      return roundRobin(
        candidates.filter((c) => members.has(c.userId)),
        cursor,
        assignLimit,
      );
    }
    case 'load_balancing': {
      const eligible = candidates.filter((c) => hasRoom(c, assignLimit)).sort((a, b) => a.openCount - b.openCount || a.userId - b.userId);
      return eligible.length ? { userId: eligible[0].userId, cursor } : null;
    }
    case 'url': {
      // The first matching subrule names the user; no match (or that user at the limit) leaves it unassigned.
      if (!input.pageUrl) return null;
      const match = (input.subrules ?? []).find((s) => urlMatches(s, input.pageUrl!));
      if (!match) return null;
      const user = candidates.find((c) => c.userId === match.userId);
      return user && hasRoom(user, assignLimit) ? { userId: user.userId, cursor } : null;
    }
    default:
      return null;
  }
}

/** Whether a choice depends on the conversation (its contact, its page): a miss for one says nothing of the next. */
export function choiceDependsOnConversation(rule: RoutingRuleType) {
  return rule === 'url' || rule === 'last_agent_assigned';
}
