/**
 * The automation tables' value lists, apart from the tables so that screens can import them without bringing the ORM
 * into the browser's bundle (as inbox-constants.ts). db/schema/automation.ts re-exports them.
 */
export const ROUTING_RULES = ['round_robin', 'active_agents', 'last_agent_assigned', 'team', 'load_balancing', 'url'] as const;
export type RoutingRuleType = (typeof ROUTING_RULES)[number];
