import { RULE_EVENTS, runRulesForEvent, runRulesForEvents } from '../../app/models/automation/runner.server';
import { hasActiveRules } from '../../app/models/automation/rule-cache.server';
import type { DomainEventType } from '../../app/models/events/types';
import { engineConcurrency, NOTHING_DONE, type EventHandler } from './types';

/** Workflows and inbox automation rules: evaluates the account's active rules for the event and applies their actions. */
export const automationRules: EventHandler = {
  name: 'automation',
  on: RULE_EVENTS as DomainEventType[],
  recordsItself: true,
  wants: (event, db) => hasActiveRules(event.accountId, event.type, db),
  async handle(event) {
    const result = await runRulesForEvent(event, { recordAs: 'automation' });
    return result.rules === 0 ? NOTHING_DONE : result;
  },
  async handleBatch(events) {
    const results = await runRulesForEvents(events, { recordAs: 'automation', concurrency: engineConcurrency() });
    return results.map((r) => (r instanceof Error ? r : r.rules === 0 ? NOTHING_DONE : r));
  },
};
