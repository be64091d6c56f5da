import { z } from 'zod';
import { API_SCOPES } from './scopes';

/** The Create API Key form (parsed on the server; ADR 027). */
export const ApiKeySchema = z.object({
  name: z.string({ error: 'Key Name is required' }).trim().min(1, 'Key Name is required').max(60, 'Key Name must be at most 60 characters'),
  scopes: z
    .array(z.enum(API_SCOPES as [string, ...string[]], { error: 'Choose scopes from the list' }), { error: 'Choose at least one scope' })
    .min(1, 'Choose at least one scope'),
});
