/** The integrations Parley knows (spec section 1), in the Settings → Integrations order. Browser-safe. */
export const PROVIDERS = {
  shopify: { label: 'Shopify', kind: 'commerce', auth: 'oauth', built: true, blurb: "The contact's customer record and recent orders, with cancel and refund." },
  bigcommerce: { label: 'BigCommerce', kind: 'commerce', auth: 'api-key', built: true, blurb: "The contact's customer record and recent orders, with cancel and refund; new and past orders count as sales." },
  hubspot: { label: 'HubSpot', kind: 'crm', auth: 'oauth', built: true, blurb: 'Contacts, companies and deals; log conversations as activities.' },
  pipedrive: { label: 'Pipedrive', kind: 'crm', auth: 'oauth', built: true, blurb: 'Persons, organizations and deals; log conversations as notes.' },
  github: { label: 'GitHub', kind: 'tasks', auth: 'oauth', built: true, blurb: 'Create or link issues from conversations; a closed issue notes (and can reopen) the conversation.' },
  asana: { label: 'Asana', kind: 'tasks', auth: 'oauth', built: true, blurb: 'Create or link tasks from conversations; a completed task notes (and can reopen) the conversation.' },
  clickup: { label: 'ClickUp', kind: 'tasks', auth: 'oauth', built: true, blurb: 'Create or link tasks from conversations; a closed task notes (and can reopen) the conversation.' },
} as const;

export type ProviderId = keyof typeof PROVIDERS;
export const PROVIDER_IDS = Object.keys(PROVIDERS) as ProviderId[];

export function isProviderId(v: string | undefined): v is ProviderId {
  return v !== undefined && Object.hasOwn(PROVIDERS, v);
}
