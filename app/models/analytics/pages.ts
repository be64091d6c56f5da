import type { Permission } from '../roles/permissions';
import type { FeatureKey } from '../plans/catalogue';

/**
 * The 23 report pages of the specification (section 2), in their side-menu groups, each with the reports permission
 * (section 6) and plan flag it needs. `built: false` pages are listed and say so honestly (issue 21).
 */
export type AnalyticsPage = {
  slug: string;
  title: string;
  group: string;
  permission: Permission;
  feature: FeatureKey;
  built: boolean;
  /** What the page is about, for its heading and for the "not built yet" state. */
  about: string;
  /** The filters that mean something on the page. */
  filters: readonly FilterDim[];
};

/** Date-range presets of every page; custom takes from/to (local days, both included). */
export const RANGE_PRESETS = [
  { value: '7d', label: 'Last 7 days', days: 7 },
  { value: '30d', label: 'Last 30 days', days: 30 },
  { value: '90d', label: 'Last 90 days', days: 90 },
  { value: '365d', label: 'Last 12 months', days: 365 },
  { value: 'custom', label: 'Custom', days: 0 },
] as const;

export const FILTER_DIMS = ['inbox', 'channel', 'team', 'agent', 'tag'] as const;
export type FilterDim = (typeof FILTER_DIMS)[number];

const CONV: readonly FilterDim[] = ['inbox', 'channel', 'team', 'agent', 'tag'];
/** The pages that compare inboxes, channels or agents side by side filter by tag only (ADR 120). */
const TAG: readonly FilterDim[] = ['tag'];

export const ANALYTICS_PAGES: readonly AnalyticsPage[] = [
  { slug: 'overview', title: 'Overview', group: 'Conversations', permission: 'conversation_reports', feature: 'analytics/enabled', built: true, filters: CONV, about: 'Volume, resolutions, response and resolution times, satisfaction and the busiest hours.' },
  { slug: 'inbox', title: 'Inbox', group: 'Conversations', permission: 'conversation_reports', feature: 'analytics/enabled', built: true, filters: TAG, about: 'Each inbox side by side.' },
  { slug: 'channels', title: 'Channels', group: 'Conversations', permission: 'conversation_reports', feature: 'analytics/enabled', built: true, filters: TAG, about: 'Each channel side by side.' },
  { slug: 'metrics', title: 'Metrics', group: 'Conversations', permission: 'conversation_reports', feature: 'analytics/enabled', built: true, filters: CONV, about: 'Medians and percentiles of first response and resolution times.' },
  { slug: 'sla', title: 'SLA', group: 'Conversations', permission: 'conversation_reports', feature: 'analytics/sla', built: true, filters: CONV, about: 'Breaches by target, policy and priority, and over time.' },
  { slug: 'workflows', title: 'Workflows', group: 'Conversations', permission: 'conversation_reports', feature: 'analytics/enabled', built: true, filters: [], about: 'Runs, matches and actions applied or failed per workflow and rule, from the run log.' },
  { slug: 'contacts', title: 'Contacts', group: 'Customers', permission: 'customer_reports', feature: 'analytics/enabled', built: true, filters: [], about: 'New and returning contacts, by country and source.' },
  { slug: 'visitors', title: 'Visitors', group: 'Customers', permission: 'customer_reports', feature: 'analytics/enabled', built: true, filters: [], about: 'Visits, pages, top pages, referrers and who is online now.' },
  { slug: 'meetings', title: 'Meetings', group: 'Customers', permission: 'customer_reports', feature: 'analytics/enabled', built: true, filters: [], about: 'Meetings booked and cancelled, by meeting type and host.' },
  { slug: 'reviews', title: 'Reviews', group: 'Reviews', permission: 'customer_satisfication_reports', feature: 'analytics/enabled', built: true, filters: [], about: 'Reviews, average rating, by source, and reply rate.' },
  { slug: 'surveys', title: 'Surveys', group: 'Surveys', permission: 'customer_satisfication_reports', feature: 'analytics/enabled', built: true, filters: [], about: 'Responses and NPS, CSAT and CES trends per survey.' },
  { slug: 'customer-satisfaction', title: 'Customer satisfaction', group: 'Surveys', permission: 'customer_satisfication_reports', feature: 'analytics/customerSatisfaction', built: true, filters: CONV, about: 'CSAT ratings by agent, team and inbox.' },
  { slug: 'forms', title: 'Forms', group: 'Forms', permission: 'customer_satisfication_reports', feature: 'analytics/enabled', built: true, filters: [], about: 'Views, submissions and conversion rate.' },
  { slug: 'users', title: 'Users', group: 'Performance', permission: 'performance_reports', feature: 'analytics/teamPerformance', built: true, filters: TAG, about: 'Per agent: conversations resolved, replies, first response and resolution times, CSAT.' },
  { slug: 'staffing-prediction', title: 'Staffing prediction', group: 'Performance', permission: 'performance_reports', feature: 'analytics/staffingPrediction', built: true, filters: ['inbox', 'channel'], about: 'Agents needed for each hour of next week (Erlang C), against the agents scheduled.' },
  { slug: 'chat', title: 'Chat', group: 'Campaigns', permission: 'campaign_reports', feature: 'campaigns/chatMessaging', built: true, filters: [], about: 'Chat (message) campaigns: shown and replied, per day and per campaign.' },
  { slug: 'email', title: 'Email', group: 'Campaigns', permission: 'campaign_reports', feature: 'campaigns/emailCampaigns', built: true, filters: [], about: 'Email campaigns: sent, opened, clicked, replied, unsubscribed and bounced.' },
  { slug: 'sms', title: 'SMS', group: 'Campaigns', permission: 'campaign_reports', feature: 'campaigns/smsCampaigns', built: true, filters: [], about: 'SMS campaigns: sent, replied, opted out and failed.' },
  { slug: 'push-notification', title: 'Push notifications', group: 'Campaigns', permission: 'campaign_reports', feature: 'campaigns/enabled', built: true, filters: [], about: 'Push campaigns: sent, clicked and failed.' },
  { slug: 'articles', title: 'Articles', group: 'Customer Support', permission: 'docs_reports', feature: 'analytics/enabled', built: true, filters: [], about: 'Article views, helpful votes, top and failing articles.' },
  { slug: 'searches', title: 'Searches', group: 'Customer Support', permission: 'docs_reports', feature: 'analytics/enabled', built: true, filters: [], about: 'Top queries, queries without a result, searches that ended in a conversation.' },
  { slug: 'goals', title: 'Goals', group: 'Ecommerce', permission: 'ecommerce_reports', feature: 'chatMessenger/conversionGoals', built: true, filters: CONV, about: 'Conversion goals reached after talking to the team.' },
  { slug: 'sales-tracking', title: 'Sales tracking', group: 'Ecommerce', permission: 'ecommerce_reports', feature: 'chatMessenger/salesTracker', built: true, filters: CONV, about: 'Sales reported by your site, attributed to conversations and agents.' },
];

export const ANALYTICS_GROUPS = ['Conversations', 'Customers', 'Reviews', 'Surveys', 'Forms', 'Performance', 'Campaigns', 'Customer Support', 'Ecommerce'] as const;

export function findAnalyticsPage(slug: string | undefined) {
  return ANALYTICS_PAGES.find((p) => p.slug === slug);
}
