import type { FeatureArea, FeatureKey } from './catalogue';

/**
 * Which plan area each part of the app belongs to (ADR 157): the area's `enabled` flag gates every page and form
 * under the prefix, judged by the guard every loader and action starts with (requireUser), so a route added to an
 * area later is covered the day it is added. A screen's own finer flag (channels/sms, campaigns/emailCampaigns...)
 * is still checked by the screen. Billing, profile, users, roles, email inboxes and Home are never here: an account
 * must always be able to reach its plan, its people, its mail and its own settings.
 */
const AREA_PREFIXES: [prefix: string, area: FeatureArea][] = [
  ['/inbox', 'conversation'],
  ['/knowledgebase', 'knowledgeBase'],
  ['/campaigns', 'campaigns'],
  ['/surveys', 'customerSatisfactionSurveys'],
  ['/reviews', 'customerSatisfactionSurveys'],
  ['/forms', 'customerManagement'],
  ['/customers', 'customerManagement'],
  ['/chatbots', 'chatMessenger'],
  ['/workflows', 'workflowAutomation'],
  ['/analytics', 'analytics'],
  // Settings pages of an area (the side menu's groups).
  // Roles stay open on every plan (the built-in roles are how users are given access); custom roles are
  // teamManagement/customRoles, checked by the role form.
  ['/settings/teams', 'teamManagement'],
  ['/settings/chat-messenger', 'chatMessenger'],
  ['/settings/appearance', 'chatMessenger'],
  ['/settings/configure', 'chatMessenger'],
  ['/settings/advanced', 'chatMessenger'],
  ['/settings/offline-experience', 'chatMessenger'],
  ['/settings/meetings', 'chatMessenger'],
  ['/settings/goals', 'chatMessenger'],
  ['/settings/sales-tracker', 'chatMessenger'],
  ['/settings/chat-pages', 'channels'],
  ['/settings/sms', 'channels'],
  ['/settings/twitter', 'channels'],
  ['/settings/facebook', 'channels'],
  ['/settings/google-business', 'channels'],
  ['/settings/contact-form', 'support'],
  ['/settings/audit-logs', 'support'],
  ['/settings/routing', 'workflowAutomation'],
  ['/settings/business-hours', 'workflowAutomation'],
  ['/settings/sla-policy', 'workflowAutomation'],
  ['/settings/automation-rules', 'workflowAutomation'],
  ['/settings/failed-automations', 'workflowAutomation'],
  ['/settings/campaigns-templates', 'campaigns'],
  ['/settings/email-survey', 'customerSatisfactionSurveys'],
  ['/settings/chat-survey', 'customerSatisfactionSurveys'],
  ['/settings/sources', 'customerSatisfactionSurveys'],
  ['/settings/email-setup', 'customerSatisfactionSurveys'],
  ['/settings/integrations', 'integrations'],
  ['/settings/developer-api', 'integrations'],
  ['/settings/webhooks', 'integrations'],
];

export const AREA_PREFIX_LIST: readonly string[] = AREA_PREFIXES.map(([p]) => p);

export const areaEnabledKey = (area: FeatureArea) => `${area}/enabled` as FeatureKey;

/** The area a feature key belongs to, as its `enabled` key (`channels/sms` → `channels/enabled`). */
export const areaKeyOf = (key: FeatureKey) => areaEnabledKey(key.split('/')[0] as FeatureArea);

/**
 * The `enabled` flag of the area a path belongs to, or null. The path may be a page's data request (`/inbox/4.data`)
 * or carry a query; `/inboxes` is not under `/inbox`.
 */
export function areaFeatureOf(pathOrUrl: string): FeatureKey | null {
  const pathname = pathOrUrl.split(/[?#]/)[0].replace(/\.data$/, '').replace(/\/+$/, '') || '/';
  for (const [prefix, area] of AREA_PREFIXES) if (pathname === prefix || pathname.startsWith(`${prefix}/`)) return areaEnabledKey(area);
  return null;
}
