import { z } from 'zod';
import { HUBSPOT_LEAD_STATUSES } from './constants';

export { HUBSPOT_LEAD_STATUSES, leadStatusLabel, PIPEDRIVE_VISIBILITY } from './constants';

/** The forms of Settings → Integrations and of the side panels (parsed on the server only, ADR 027). */
export const ShopifyConnectSchema = z.object({
  shop: z.string({ error: 'Shop is required' }).trim().min(1, 'Shop is required').max(120),
});

export const GithubSettingsSchema = z.object({
  defaultRepo: z
    .string()
    .trim()
    .max(140)
    .regex(/^([A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100})?$/, 'Repository must be owner/name')
    .default(''),
  reopenOnClose: z.literal('on').optional(),
});

export const GithubIssueSchema = z.object({
  repo: z
    .string({ error: 'Repository is required' })
    .trim()
    .regex(/^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}$/, 'Repository must be owner/name'),
  title: z.string({ error: 'Title is required' }).trim().min(1, 'Title is required').max(256),
  body: z.string().trim().max(10_000).default(''),
  assignee: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9-]{0,39}$/, 'Assignee must be a GitHub user name')
    .default(''),
  reopenOnClose: z.literal('on').optional(),
});

export const GithubLinkSchema = z.object({
  ref: z.string({ error: 'Issue is required' }).trim().min(1, 'Issue is required').max(300),
  reopenOnClose: z.literal('on').optional(),
});

export const OrderActionSchema = z.object({
  orderId: z.coerce.number().int().positive(),
  action: z.enum(['cancel', 'refund']),
});

export const BigcommerceConnectSchema = z.object({
  storeHash: z.string({ error: 'Store hash is required' }).trim().min(1, 'Store hash is required').max(200),
  accessToken: z.string({ error: 'Access token is required' }).trim().min(1, 'Access token is required').max(200),
});

export const BigcommerceOrderActionSchema = z.object({
  orderId: z.coerce.number().int().positive(),
  action: z.enum(['cancel', 'refund']),
  /** The refund method's index in BigCommerce's refund quote (refund only). */
  method: z.coerce.number({ error: 'Choose a refund method' }).int().min(0).max(50).default(0),
});


export const HubspotContactSchema = z.object({
  leadStatus: z.enum(HUBSPOT_LEAD_STATUSES, { error: 'Choose a lead status' }).optional(),
});

export const HubspotDealSchema = z.object({
  dealName: z.string({ error: 'Deal name is required' }).trim().min(1, 'Deal name is required').max(200),
  pipeline: z.string({ error: 'Pipeline is required' }).trim().min(1, 'Pipeline is required').max(100),
  dealStage: z.string({ error: 'Deal stage is required' }).trim().min(1, 'Deal stage is required').max(100),
  closeDate: z.iso.date({ error: 'Close date must be a date' }).optional(),
  ownerId: z.string().trim().max(40).regex(/^\d*$/, 'Choose an owner').optional(),
  amount: z
    .string()
    .trim()
    .regex(/^\d{1,12}(\.\d{1,2})?$/, 'Amount must be a number such as 1200 or 99.50')
    .optional(),
});

export const PipedriveDealSchema = z.object({
  title: z.string({ error: 'Deal title is required' }).trim().min(1, 'Deal title is required').max(255),
  pipelineId: z.coerce.number({ error: 'Pipeline ID is required' }).int().positive('Pipeline ID is required'),
  stageId: z.coerce.number({ error: 'Stage ID is required' }).int().positive('Stage ID is required'),
  ownerId: z.coerce.number().int().positive().optional(),
  closeDate: z.iso.date({ error: 'Close date must be a date' }).optional(),
  value: z.string().trim().regex(/^\d{1,12}(\.\d{1,2})?$/, 'Value must be a number such as 1200 or 99.50').optional(),
  /** Section 3 "visible to": Pipedrive's visible_to (1 owner and followers, 3 the entire company); the company's default when empty. */
  visibleTo: z.enum(['1', '3'], { error: 'Choose who can see the deal' }).optional(),
});


/** Settings → Integrations → Shopify/BigCommerce: import past orders (ADR 118). */
export const OrderImportSchema = z.object({
  since: z.iso.date({ error: 'Orders since must be a date' }).optional(),
});
