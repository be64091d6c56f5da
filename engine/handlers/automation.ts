import { RULE_EVENTS, runRulesForEvent } from '../../app/models/automation/runner.server';
import type { DomainEventType } from '../../app/models/events/types';
import { NOTHING_DONE, type EventHandler } from './types';

/** Workflows and inbox automation rules: evaluates the account's active rules for the event and applies their actions. */
export const automationRules: EventHandler = {
  name: 'automation',
  on: RULE_EVENTS as DomainEventType[],
  async handle(event) {
    const result = await runRulesForEvent(event);
    return result.rules === 0 ? NOTHING_DONE : result;
  },
};
