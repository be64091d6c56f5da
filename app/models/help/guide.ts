import { SETTINGS_MENU } from '../shell/navigation';

/**
 * Parley's user guide (docs/guide/*.md, rendered under Help Center). Pure: which page explains which screen.
 * Settings pages are explained one menu group per guide page, one section per item (the section's id is the
 * item's slug), so every "Learn more" lands on the paragraph about the page it sits on.
 */

/** The guide's pages in reading order: file name (without .md) is the slug. */
export const GUIDE_PAGES = [
  { slug: 'getting-started', title: 'Getting started' },
  { slug: 'inbox', title: 'Inbox' },
  { slug: 'crm', title: 'CRM: contacts and companies' },
  { slug: 'workflows', title: 'Workflows' },
  { slug: 'knowledge-base', title: 'Knowledge base and help centre' },
  { slug: 'surveys', title: 'Surveys' },
  { slug: 'chatbots', title: 'Chatbots' },
  { slug: 'campaigns', title: 'Campaigns' },
  { slug: 'reviews', title: 'Reviews' },
  { slug: 'forms', title: 'Forms' },
  { slug: 'channels', title: 'Channels' },
  { slug: 'messenger', title: 'Messenger' },
  { slug: 'automations', title: 'Automations: routing, hours, SLA and rules' },
  { slug: 'productivity', title: 'Productivity: tags, replies and templates' },
  { slug: 'ai-help', title: 'AI reply help' },
  { slug: 'my-settings', title: 'Your own settings' },
  { slug: 'account-security', title: 'Account security: two-factor sign-in, email change and idle sign-out' },
  { slug: 'organization', title: 'Your organization: account, users, teams and roles' },
  { slug: 'data-export-and-erasure', title: 'Data export and erasure' },
  { slug: 'billing', title: 'Plans and billing' },
  { slug: 'api-and-integrations', title: 'API and integrations' },
  { slug: 'analytics', title: 'Analytics' },
  { slug: 'running-parley', title: 'Running Parley: one server or a cluster' },
] as const;
export type GuideSlug = (typeof GUIDE_PAGES)[number]['slug'];

const PAGE_OF_GROUP: Record<string, GuideSlug> = {
  'My Settings': 'my-settings',
  'My Organization': 'organization',
  Channels: 'channels',
  Messenger: 'messenger',
  Automations: 'automations',
  Productivity: 'productivity',
  Billing: 'billing',
  Reviews: 'reviews',
  'Customer Satisfaction': 'surveys',
  'API and Integrations': 'api-and-integrations',
  Conversions: 'analytics',
};

export function isGuideSlug(slug: string): slug is GuideSlug {
  return GUIDE_PAGES.some((p) => p.slug === slug);
}

/** The guide section about a settings page (by its menu slug), or the Help Center's front page. */
export function guideLinkForSettings(settingsSlug: string) {
  for (const g of SETTINGS_MENU) {
    const page = PAGE_OF_GROUP[g.group];
    if (page && g.items.some((i) => i.slug === settingsSlug && i.built)) return `/help-center/${page}#${settingsSlug}`;
  }
  return '/help-center';
}

/** The guide link for an app path (/settings/emails/3 → the Emails section of the Channels page). */
export function guideLinkForPath(pathname: string) {
  const settings = /^\/settings\/([^/]+)/.exec(pathname);
  if (settings) return guideLinkForSettings(settings[1]);
  if (pathname.startsWith('/workflows')) return '/help-center/workflows';
  if (pathname.startsWith('/customers')) return '/help-center/crm';
  if (pathname.startsWith('/knowledgebase')) return '/help-center/knowledge-base';
  if (pathname.startsWith('/inbox')) return '/help-center/inbox';
  if (pathname.startsWith('/surveys')) return '/help-center/surveys';
  if (pathname.startsWith('/chatbots')) return '/help-center/chatbots';
  if (pathname.startsWith('/campaigns')) return '/help-center/campaigns';
  if (pathname.startsWith('/reviews')) return '/help-center/reviews';
  if (pathname.startsWith('/forms')) return '/help-center/forms';
  return '/help-center';
}

/** Every settings page the guide must explain (the built ones), with where. */
export function builtSettingsSections() {
  return SETTINGS_MENU.flatMap((g) => (PAGE_OF_GROUP[g.group] ? g.items.filter((i) => i.built).map((i) => ({ slug: i.slug, page: PAGE_OF_GROUP[g.group] })) : []));
}

/** A heading's id: its words, lower-case, joined by dashes ("SLA Policy" → "sla-policy"). */
export function headingId(text: string) {
  return text
    .toLowerCase()
    .replace(/&[a-z]+;/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}
