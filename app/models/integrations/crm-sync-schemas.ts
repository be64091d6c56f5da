import { z } from 'zod';

/** Settings → Integrations → HubSpot / Pipedrive: the contact sync's opt-in and field mapping (ADR 116, server-parsed). */
const property = z.string().trim().max(60).optional();
export const CrmSyncSchema = z.object({
  enabled: z.literal('on').optional(),
  firstName: property,
  lastName: property,
  phone: property,
  title: property,
});
