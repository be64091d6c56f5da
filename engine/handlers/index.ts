import { analyticsProjections } from './analytics';
import { automationRules } from './automation';
import { csatOnResolve } from './csat';
import { inviteUser } from './invitations';
import { notifyAgents } from './notifications';
import { slaEscalation, slaTimers } from './sla';
import { reviewRequests } from './review-requests';
import { routeByRules } from './routing';
import type { EventHandler } from './types';
import { urlGoals } from './url-goals';
import { webhookDeliveries } from './webhooks';
import { welcomeOwner } from './welcome';

/**
 * Every handler the engine runs, in this order for one event: workflows and automation rules first (they may assign),
 * then routing (only what is still unassigned), then SLA timers; agents' notifications; the analytics counters last.
 */
export const HANDLERS: EventHandler[] = [welcomeOwner, inviteUser, automationRules, routeByRules, slaTimers, slaEscalation, notifyAgents, csatOnResolve, webhookDeliveries, reviewRequests, urlGoals, analyticsProjections];
