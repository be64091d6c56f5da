import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from './constants';

/** The webhook form (parsed on the server; ADR 027). The address check against private networks is in the model. */
export const WebhookSchema = z.object({
  url: z
    .string({ error: 'Endpoint URL is required' })
    .trim()
    .min(1, 'Endpoint URL is required')
    .max(2000, 'Endpoint URL must be at most 2000 characters')
    .refine((u) => /^https?:\/\/[^\s]+$/i.test(u) && URL.canParse(u), 'Enter a valid URL starting with https:// or http://'),
  description: z.string().trim().max(200, 'Description must be at most 200 characters').optional(),
  eventTypes: z.array(z.enum(WEBHOOK_EVENT_TYPES, { error: 'Choose events from the list' }), { error: 'Choose at least one event' }).min(1, 'Choose at least one event'),
  active: z.boolean().optional(),
});
