import { z } from 'zod';

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
  action: z.literal('cancel'),
});
