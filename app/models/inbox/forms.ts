import { z } from 'zod';
import { TZDate } from '@date-fns/tz';
import { format } from 'date-fns';
import { PRIORITIES } from '../../../db/schema/inbox-constants';
import { EmailSchema } from '../accounts/schemas';
import { MESSAGE_REQUIRED, MESSAGE_MAX, SUBJECT_REQUIRED, INBOX_REQUIRED, SELECT_CONVERSATIONS, MERGE_NEEDS_TWO, SNOOZE_TIME_REQUIRED, SNOOZE_IN_FUTURE, INVALID_EMAIL, REPLY_INTENTS, STATUS_CHOICES, START_CHANNELS } from './form-constants';
export { START_CHANNELS, type StartChannel } from './form-constants';

// The plain values live in form-constants.ts so that screens can use them without shipping zod (ADR 027).
export * from './form-constants';

/**
 * The forms of the inbox screens: one zod schema per form, shared by the browser (conform) and the server.
 * Ids arrive as text from selects, hidden fields and checkboxes.
 */

const idOf = (message: string) => z.number({ error: message }).int(message).positive(message).max(2_147_483_647, message);
/** Message ids are bigserial; still bounded so that PostgreSQL never fails on them. */
const messageId = z
  .number({ error: 'Message not found' })
  .int('Message not found')
  .positive('Message not found')
  .max(Number.MAX_SAFE_INTEGER, 'Message not found');

const messageText = z
  .string({ error: MESSAGE_REQUIRED })
  .trim()
  .min(1, MESSAGE_REQUIRED)
  .max(MESSAGE_MAX, `Length must be less than or equal to ${MESSAGE_MAX} characters`);

/** "a@x.test, b@y.test": each a valid address; empty means none. */
const addressList = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const list = (v ?? '')
      .split(/[,;\s]+/)
      .map((s) => s.trim())
      .filter(Boolean);
    const out: string[] = [];
    for (const item of list) {
      const parsed = EmailSchema.safeParse(item);
      if (!parsed.success) {
        ctx.addIssue({ code: 'custom', message: INVALID_EMAIL });
        return z.NEVER;
      }
      out.push(parsed.data);
    }
    if (out.length > 50) {
      ctx.addIssue({ code: 'custom', message: 'At most 50 addresses' });
      return z.NEVER;
    }
    return [...new Set(out)];
  });

export const ReplySchema = z.object({
  intent: z.enum(REPLY_INTENTS),
  text: messageText,
  cc: addressList,
  bcc: addressList,
});

export const EditMessageSchema = z.object({ messageId, text: messageText });
export const MessageRefSchema = z.object({ messageId });

export const AssignSchema = z.object({
  // An empty select means "nobody".
  assigneeId: idOf('Choose a user of this account').optional(),
  teamId: idOf('Choose a team of this account').optional(),
});

export const StatusSchema = z.object({ status: z.enum(STATUS_CHOICES, { error: 'Choose a status' }) });
export const PrioritySchema = z.object({ priority: z.enum(PRIORITIES, { error: 'Choose a priority' }) });
export const MoveSchema = z.object({ inboxId: idOf(INBOX_REQUIRED) });
export const TagSchema = z.object({ tagId: idOf('Choose a tag') });

/**
 * The properties panel (ADR 035): status, assignee, team, priority, inbox and tags saved together by one button.
 * An empty status keeps a snoozed conversation snoozed; no tag ticked means no tags.
 */
export const PropertiesSchema = z.object({
  status: z.enum(STATUS_CHOICES, { error: 'Choose a status' }).optional(),
  assigneeId: idOf('Choose a user of this account').optional(),
  teamId: idOf('Choose a team of this account').optional(),
  priority: z.enum(PRIORITIES, { error: 'Choose a priority' }),
  inboxId: idOf(INBOX_REQUIRED),
  tagIds: z.array(idOf('Choose tags of this account')).max(100).default([]),
});

/** A datetime-local value, read in the agent's own time zone by the server. */
export const SnoozeSchema = z.object({
  until: z
    .string({ error: SNOOZE_TIME_REQUIRED })
    .trim()
    .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/, SNOOZE_TIME_REQUIRED),
});

/** Ids typed as "12, #15 18" or ticked in a list; the current conversation is the target. */
export function readIdList(values: unknown): number[] | null {
  const raw = (Array.isArray(values) ? values : [values]).filter((v): v is string | number => typeof v === 'string' || typeof v === 'number');
  const ids: number[] = [];
  for (const chunk of raw.flatMap((v) => String(v).split(/[,;\s]+/))) {
    const s = chunk.trim().replace(/^#/, '');
    if (!s) continue;
    if (!/^\d{1,10}$/.test(s) || Number(s) > 2_147_483_647 || Number(s) < 1) return null;
    ids.push(Number(s));
  }
  return [...new Set(ids)];
}

const BAD_IDS = 'Conversation ids are numbers such as 12, 15';

/** A list of conversation ids as one field (so that its message shows under it), possibly required. */
const idList = (emptyMessage: string) =>
  z.unknown().transform((v, ctx) => {
    const ids = readIdList(v);
    if (!ids) ctx.addIssue({ code: 'custom', message: BAD_IDS });
    else if (ids.length === 0) ctx.addIssue({ code: 'custom', message: emptyMessage });
    else return ids;
    return z.NEVER;
  });

/** Merge into the open conversation: candidates ticked in the list and/or ids typed by hand ("12, #15"). */
export const MergeSchema = z
  .object({
    sourceIds: z.union([z.string(), z.array(z.string())]).optional(),
    ids: z.string().max(500, BAD_IDS).optional(),
  })
  .transform((v, ctx) => {
    const ticked = readIdList(v.sourceIds);
    const typed = readIdList(v.ids);
    if (!ticked || !typed) {
      ctx.addIssue({ code: 'custom', path: ['ids'], message: BAD_IDS });
      return z.NEVER;
    }
    const all = [...new Set([...ticked, ...typed])];
    if (all.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['ids'], message: MERGE_NEEDS_TWO });
      return z.NEVER;
    }
    return { sourceIds: all };
  });

const selection = idList(SELECT_CONVERSATIONS);
const choice = (message: string) =>
  z
    .string({ error: message })
    .regex(/^\d{1,9}$/, message)
    .transform(Number);

export const MassActionSchema = z.discriminatedUnion('intent', [
  z.object({
    intent: z.literal('assign'),
    ids: selection,
    // "none" unassigns; the empty placeholder is no choice at all.
    assigneeId: z
      .string({ error: 'Choose a user of this account' })
      .regex(/^(none|\d{1,9})$/, 'Choose a user of this account')
      .transform((v) => (v === 'none' ? null : Number(v))),
  }),
  z.object({ intent: z.literal('status'), ids: selection, status: z.enum(STATUS_CHOICES, { error: 'Choose a status' }) }),
  z.object({ intent: z.literal('priority'), ids: selection, priority: z.enum(PRIORITIES, { error: 'Choose a priority' }) }),
  z.object({ intent: z.literal('tag'), ids: selection, tagId: choice('Choose a tag') }),
  z.object({ intent: z.literal('move'), ids: selection, inboxId: choice(INBOX_REQUIRED) }),
  z.object({ intent: z.literal('delete'), ids: selection }),
]);

export type MassAction = z.infer<typeof MassActionSchema>;

/** New internal ticket (POST conversation/ticket): an agent opens a conversation on behalf of a contact. */
export const TicketSchema = z.object({
  inboxId: idOf(INBOX_REQUIRED),
  email: EmailSchema,
  name: z.string().trim().max(60, 'Length must be less than or equal to 60 characters').optional(),
  subject: z.string({ error: SUBJECT_REQUIRED }).trim().min(1, SUBJECT_REQUIRED).max(255, 'Length must be less than or equal to 255 characters'),
  message: messageText,
});

export type TicketInput = z.infer<typeof TicketSchema>;

/** The channels an agent may start a conversation on with a known contact, besides email (ADR 035). */

/** A new SMS or chat with a known contact: picked on their page (contactId) or typed by email or phone (contactKey). */
export const StartMessageSchema = z
  .object({
    channel: z.enum(START_CHANNELS, { error: 'Choose SMS or chat' }),
    inboxId: idOf(INBOX_REQUIRED),
    contactId: idOf('Choose a contact').optional(),
    contactKey: z.string().trim().max(200, 'Length must be less than or equal to 200 characters').optional(),
    message: messageText,
  })
  .refine((v) => v.contactId !== undefined || !!v.contactKey, { message: 'Enter the contact’s email address or phone number', path: ['contactKey'] });

/** A datetime-local value ("2026-12-31T09:30") read as a wall-clock time in the agent's time zone. */
export function zonedInputToDate(value: string, timezone: string | null | undefined): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0));
  let date: Date;
  try {
    date = new TZDate(y, mo - 1, d, h, mi, s, timezone || 'UTC');
  } catch {
    date = new TZDate(y, mo - 1, d, h, mi, s, 'UTC');
  }
  // 2026-02-31 rolls over silently in Date: refuse it instead.
  const back = dateToZonedInput(date, timezone);
  if (Number.isNaN(date.getTime()) || back.slice(0, 10) !== value.slice(0, 10)) return null;
  return new Date(date.getTime());
}

/** The datetime-local value of an instant in the agent's time zone. */
export function dateToZonedInput(date: Date, timezone: string | null | undefined) {
  let z: TZDate;
  try {
    z = new TZDate(date, timezone || 'UTC');
  } catch {
    z = new TZDate(date, 'UTC');
  }
  return format(z, "yyyy-MM-dd'T'HH:mm");
}
