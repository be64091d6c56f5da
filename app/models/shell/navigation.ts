import type { FeatureKey } from '../plans/catalogue';
import type { Permission } from '../roles/permissions';

/** Top navigation in the specification's order. */
export const MAIN_NAV = [
  { label: 'Home', to: '/home' },
  { label: 'Inbox', to: '/inbox' },
  { label: 'Knowledge Base', to: '/knowledgebase' },
  { label: 'Campaigns', to: '/campaigns' },
  { label: 'Surveys', to: '/surveys' },
  { label: 'Reviews', to: '/reviews' },
  { label: 'Forms', to: '/forms' },
  { label: 'Chatbots', to: '/chatbots' },
  { label: 'Workflows', to: '/workflows' },
  { label: 'CRM', to: '/customers' },
  { label: 'Analytics', to: '/analytics' },
  { label: 'Settings', to: '/settings' },
] as const;

export type SettingsItem = {
  slug: string;
  label: string;
  /** Built pages have a route of their own; the others show the coming-soon page. */
  built?: boolean;
  feature?: FeatureKey;
  permission?: Permission;
  orgAdmin?: boolean;
  /** The account's owner only (the whole account's export, ADR 153). */
  owner?: boolean;
  /** Shown only with billing on (PARLEY_BILLING=on, ADR 074): a self-hoster who charges nobody never sees it. */
  billing?: boolean;
};

/** Settings side menu groups (section 2, "Settings"), with the gates that apply to each page. */
export const SETTINGS_MENU: { group: string; items: SettingsItem[] }[] = [
  {
    group: 'My Settings',
    items: [
      { slug: 'my-profile', label: 'My Profile', built: true },
      { slug: 'security', label: 'Security', built: true },
      { slug: 'notification', label: 'Notification', built: true },
    ],
  },
  {
    group: 'My Organization',
    items: [
      { slug: 'account-settings', label: 'Account Settings', built: true, permission: 'manage_general_settings' },
      { slug: 'users', label: 'Users', built: true, orgAdmin: true },
      { slug: 'teams', label: 'Teams', built: true, feature: 'teamManagement/teams' },
      { slug: 'roles', label: 'Roles', built: true },
      { slug: 'data-export', label: 'Data Export', built: true, owner: true },
    ],
  },
  {
    group: 'Channels',
    items: [
      { slug: 'chat-messenger', label: 'Chat Messenger', built: true, permission: 'manage_chat_messenger_and_pages' },
      { slug: 'chat-pages', label: 'Chat Pages', built: true, feature: 'channels/chatPages', permission: 'manage_chat_messenger_and_pages' },
      { slug: 'emails', label: 'Emails', built: true, permission: 'manage_emails' },
      { slug: 'sms', label: 'SMS', built: true, feature: 'channels/sms', permission: 'manage_sms' },
      { slug: 'twitter', label: 'Twitter', built: true, permission: 'manage_twitter' },
      { slug: 'facebook', label: 'Facebook', built: true, permission: 'manage_facebook' },
      { slug: 'contact-form', label: 'Contact Form', built: true, permission: 'manage_contact_form' },
      { slug: 'google-business', label: 'Google Business', built: true },
    ],
  },
  {
    group: 'Messenger',
    items: [
      { slug: 'appearance', label: 'Appearance', built: true, permission: 'manage_messenger_customization' },
      { slug: 'configure', label: 'Configure', built: true, permission: 'manage_messenger_customization' },
      { slug: 'advanced', label: 'Advanced', built: true, permission: 'manage_messenger_customization' },
      { slug: 'offline-experience', label: 'Offline Experience', built: true, feature: 'chatMessenger/offlineExperience' },
      { slug: 'meetings', label: 'Meetings', built: true, feature: 'chatMessenger/integratedMeetings' },
    ],
  },
  {
    group: 'Automations',
    items: [
      { slug: 'routing', label: 'Routing', built: true, permission: 'manage_routings' },
      { slug: 'business-hours', label: 'Business Hours', built: true, permission: 'manage_business_hours' },
      { slug: 'sla-policy', label: 'SLA Policy', built: true, feature: 'workflowAutomation/slaManagement', permission: 'manage_sla' },
      { slug: 'automation-rules', label: 'Automation Rules', built: true, permission: 'manage_workflow_rules' },
      { slug: 'failed-automations', label: 'Failed Automations', built: true, permission: 'manage_workflow_rules' },
    ],
  },
  {
    group: 'Productivity',
    items: [
      { slug: 'tags', label: 'Tags', built: true, permission: 'manage_tags' },
      { slug: 'canned-responses', label: 'Canned Responses', built: true, permission: 'manage_canned_responses' },
      { slug: 'campaigns-templates', label: 'Campaign Templates', built: true, feature: 'campaigns/emailCampaigns' },
      { slug: 'email-templates', label: 'Email Templates', built: true, permission: 'manage_email_templates' },
      { slug: 'trusted-domain', label: 'Trusted Domain', built: true, permission: 'manage_trusted_domains' },
      { slug: 'audit-logs', label: 'Audit Logs', built: true, feature: 'support/auditLogs', permission: 'view_audit_logs' },
    ],
  },
  {
    group: 'Customer Satisfaction',
    items: [
      { slug: 'email-survey', label: 'Email Survey', built: true, feature: 'customerSatisfactionSurveys/emailSurveys', permission: 'manage_surveys' },
      { slug: 'chat-survey', label: 'Chat Survey', built: true, feature: 'customerSatisfactionSurveys/chatSurveys', permission: 'manage_surveys' },
    ],
  },
  {
    group: 'Reviews',
    items: [
      { slug: 'sources', label: 'Sources', built: true, feature: 'customerSatisfactionSurveys/enabled', permission: 'manage_surveys' },
      { slug: 'email-setup', label: 'Email Setup', built: true, feature: 'customerSatisfactionSurveys/enabled', permission: 'manage_surveys' },
    ],
  },
  {
    group: 'Billing',
    items: [
      { slug: 'my-plan', label: 'My Plan', built: true },
      { slug: 'invoices', label: 'Invoices', built: true, billing: true },
    ],
  },
  {
    group: 'Conversions',
    items: [
      { slug: 'goals', label: 'Goals', built: true, feature: 'chatMessenger/conversionGoals' },
      { slug: 'sales-tracker', label: 'Sales Tracker', built: true, feature: 'chatMessenger/salesTracker' },
    ],
  },
  {
    group: 'API and Integrations',
    items: [
      { slug: 'integrations', label: 'Integrations', built: true, feature: 'integrations/enabled', permission: 'manage_integrations' },
      { slug: 'ai-help', label: 'AI Help', built: true },
      { slug: 'developer-api', label: 'Developer API', built: true, feature: 'integrations/enabled', permission: 'manage_integrations' },
      { slug: 'webhooks', label: 'Webhooks', built: true, feature: 'integrations/enabled', permission: 'manage_integrations' },
    ],
  },
];

export function findSettingsItem(slug: string) {
  for (const g of SETTINGS_MENU) for (const item of g.items) if (item.slug === slug) return item;
  return undefined;
}
