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
  /** Typed by hand, for a project the picker does not list; wins over the picker (ADR 118). */
  defaultProjectId: gid('Project ID'),
  reopenOnClose: z.literal('on').optional(),
});

export const AsanaTaskSchema = z.object({
  name: z.string({ error: 'Name is required' }).trim().min(1, 'Name is required').max(1024),
  notes: z.string().trim().max(10_000).default(''),
  workspace: gid('Workspace'),
  project: gid('Project'),
  projectId: gid('Project ID'),
  assignee: z
    .string()
    .trim()
    .max(254)
    .regex(/^(me|\d{1,30}|[^\s@]+@[^\s@]+)?$/, 'Assignee must be "me", an email address or an Asana user ID')
    .default(''),
  /** Section 3 "due date": Asana's due_on, a day. */
  dueOn: z.union([z.literal(''), z.iso.date({ error: 'Due date must be a date' })]).default(''),
  reopenOnClose: z.literal('on').optional(),
});

const clickupId = (label: string) =>
  z
    .string()
    .trim()
    .regex(/^\d{0,20}$/, `${label} must be a ClickUp ${label.toLowerCase().replace(' id', '')} ID (digits)`)
    .default('');

export const ClickupSettingsSchema = z.object({
  defaultTeam: clickupId('Workspace'),
  defaultSpace: clickupId('Space'),
  defaultList: clickupId('List'),
  /** Typed by hand, for a list the picker does not show; wins over the picker (ADR 118). */
  defaultListId: clickupId('List ID'),
  reopenOnClose: z.literal('on').optional(),
});

export const ClickupTaskSchema = z
  .object({
    team: clickupId('Workspace'),
    space: clickupId('Space'),
    list: clickupId('List'),
    listId: clickupId('List ID'),
    name: z.string({ error: 'Name is required' }).trim().min(1, 'Name is required').max(1024),
    description: z.string().trim().max(10_000).default(''),
    assignee: z
      .string()
      .trim()
      .regex(/^\d{0,15}$/, 'Assignee must be a ClickUp user ID (digits)')
      .default(''),
    reopenOnClose: z.literal('on').optional(),
  })
  .refine((v) => v.list || v.listId, { message: 'List is required', path: ['list'] });

export const TaskLinkSchema = z.object({
  ref: z.string({ error: 'Task is required' }).trim().min(1, 'Task is required').max(300),
  reopenOnClose: z.literal('on').optional(),
});
