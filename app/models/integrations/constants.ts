/** Plain values of the integration forms (schemas.ts), apart from zod so that screens can show them without shipping it (ADR 027). */

/** HubSpot's default options of the contact property hs_lead_status. */
export const HUBSPOT_LEAD_STATUSES = ['NEW', 'OPEN', 'IN_PROGRESS', 'OPEN_DEAL', 'UNQUALIFIED', 'ATTEMPTED_TO_CONTACT', 'CONNECTED', 'BAD_TIMING'] as const;
export const leadStatusLabel = (s: string) => s.charAt(0) + s.slice(1).toLowerCase().replaceAll('_', ' ');

export const PIPEDRIVE_VISIBILITY = [
  { value: '1', label: 'Owner and followers' },
  { value: '3', label: 'Entire company' },
] as const;
