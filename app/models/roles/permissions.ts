/** Permission groups and names exactly as section 6 of the specification lists them. */
export const PERMISSION_GROUPS = {
  automation: ['manage_business_hours', 'manage_routings', 'manage_sla', 'manage_workflow_rules'],
  campaigns: ['manage_campaigns'],
  channels: [
    'manage_messenger_customization',
    'manage_chat_messenger_and_pages',
    'manage_emails',
    'manage_contact_form',
    'manage_facebook',
    'manage_twitter',
    'manage_sms',
  ],
  contacts: ['manage_contacts', 'import_contacts', 'export_contacts'],
  customerSatisfaction: ['manage_surveys'],
  inbox: ['create_ticket', 'manage_conversation'],
  integrations: ['manage_integrations', 'view_incoming_data', 'perform_data_specific_action'],
  knowledgeBase: ['manage_articles', 'manage_categories', 'customize_docs', 'view_articles', 'docs_reports'],
  organization: ['manage_general_settings'],
  productivity: ['manage_tags', 'manage_canned_responses', 'manage_email_templates', 'manage_trusted_domains', 'view_audit_logs'],
  reports: [
    'conversation_reports',
    'customer_reports',
    'campaign_reports',
    'customer_satisfication_reports',
    'performance_reports',
    'ecommerce_reports',
  ],
} as const;

export type PermissionGroup = keyof typeof PERMISSION_GROUPS;
export type Permission = (typeof PERMISSION_GROUPS)[PermissionGroup][number];

export const ALL_PERMISSIONS = Object.values(PERMISSION_GROUPS).flat() as Permission[];

export function isPermission(value: string): value is Permission {
  return (ALL_PERMISSIONS as string[]).includes(value);
}

/** What an agent can do out of the box: work conversations and contacts, read articles. */
export const AGENT_PERMISSIONS: Permission[] = [
  'create_ticket',
  'manage_conversation',
  'manage_contacts',
  'view_articles',
  'manage_tags',
  'manage_canned_responses',
  'conversation_reports',
];

export { ROLE_LOCKED_MESSAGE } from '../shell/denied-messages';
