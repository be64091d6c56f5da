import { analyticsProjections } from './analytics';
import { automationRules } from './automation';
import { crmContactSync } from './crm-sync';
import { csatOnResolve } from './csat';
import { formSubmissions } from './forms';
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
 * Every handler the engine runs, in this order for one event: a form submission filed first (ADR 112: it completes
 * the event's payload); then workflows and automation rules (they may assign),
 * then routing (only what is still unassigned), then SLA timers; agents' notifications; the analytics counters last.
 * The handlers after routing, up to the analytics, are `parallel` (ADR 139): they work a batch at the same time.
 */
export const HANDLERS: EventHandler[] = [formSubmissions, welcomeOwner, inviteUser, automationRules, routeByRules, slaTimers, slaEscalation, notifyAgents, csatOnResolve, webhookDeliveries, reviewRequests, crmContactSync, urlGoals, analyticsProjections];
