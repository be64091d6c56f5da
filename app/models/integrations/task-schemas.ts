import { z } from 'zod';

/** The Asana and ClickUp forms of Settings → Integrations and of a conversation (parsed on the server only, ADR 027). */
const gid = (label: string) =>
  z
    .string()
    .trim()
    .regex(/^\d{0,30}$/, `${label} must be an Asana ID (digits)`)
    .default('');

export const AsanaSettingsSchema = z.object({
  defaultWorkspace: gid('Workspace'),
  defaultProject: gid('Project'),
  reopenOnClose: z.literal('on').optional(),
});

export const AsanaTaskSchema = z.object({
  name: z.string({ error: 'Name is required' }).trim().min(1, 'Name is required').max(1024),
  notes: z.string().trim().max(10_000).default(''),
  workspace: gid('Workspace'),
  project: gid('Project'),
  assignee: z
    .string()
    .trim()
    .max(254)
    .regex(/^(me|\d{1,30}|[^\s@]+@[^\s@]+)?$/, 'Assignee must be "me", an email address or an Asana user ID')
    .default(''),
  reopenOnClose: z.literal('on').optional(),
});

export const ClickupSettingsSchema = z.object({
  defaultList: z
    .string()
    .trim()
    .regex(/^\d{0,20}$/, 'List must be a ClickUp list ID (digits)')
    .default(''),
  reopenOnClose: z.literal('on').optional(),
});

export const ClickupTaskSchema = z.object({
  list: z.string({ error: 'List is required' }).trim().regex(/^\d{1,20}$/, 'List must be a ClickUp list ID (digits)'),
  name: z.string({ error: 'Name is required' }).trim().min(1, 'Name is required').max(1024),
  description: z.string().trim().max(10_000).default(''),
  assignee: z
    .string()
    .trim()
    .regex(/^\d{0,15}$/, 'Assignee must be a ClickUp user ID (digits)')
    .default(''),
  reopenOnClose: z.literal('on').optional(),
});

export const TaskLinkSchema = z.object({
  ref: z.string({ error: 'Task is required' }).trim().min(1, 'Task is required').max(300),
  reopenOnClose: z.literal('on').optional(),
});
