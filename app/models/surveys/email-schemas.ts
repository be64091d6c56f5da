import { z } from 'zod';
import { EMAIL_LIMITS, RECURRING_INTERVALS, SURVEY_MESSAGES as M } from './constants';
import { settingsSchema } from './schemas';

/** The time zones offered (IANA names of this runtime): a name outside them is refused. */
export const TIME_ZONES: readonly string[] = Intl.supportedValuesOf('timeZone');

const flag = z.boolean().optional().default(false);

/**
 * The email channel's part of the Settings step (survey-builder.md section 3, "Schedule later", "Recurring"): send at
 * publish or at a local date and time in a zone; once, or every 7, 30, 60 or N days.
 */
export const EmailScheduleSchema = z
  .object({
    sendLater: flag,
    sendDate: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, M.date).optional(),
    sendTime: z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'Please select a time')
      .optional(),
    timezone: z.string().max(64).optional(),
    recurring: flag,
    interval: z.enum(RECURRING_INTERVALS, { error: M.interval }).optional(),
    customDays: z
      .number({ error: M.interval })
      .int(M.interval)
      .min(1, 'The interval must be more than 0 days')
      .max(EMAIL_LIMITS.customIntervalMax, `The interval must be ${EMAIL_LIMITS.customIntervalMax} days or less`)
      .optional(),
  })
  .superRefine((v, ctx) => {
    if (v.sendLater) {
      if (!v.sendDate) ctx.addIssue({ code: 'custom', message: M.date, path: ['sendDate'] });
      if (!v.timezone) ctx.addIssue({ code: 'custom', message: M.timezone, path: ['timezone'] });
      else if (!TIME_ZONES.includes(v.timezone)) ctx.addIssue({ code: 'custom', message: M.timezone, path: ['timezone'] });
    }
    if (v.recurring) {
      if (!v.interval) ctx.addIssue({ code: 'custom', message: M.interval, path: ['interval'] });
      else if (v.interval === 'custom' && v.customDays === undefined) ctx.addIssue({ code: 'custom', message: M.interval, path: ['customDays'] });
    }
  })
  .transform((v) => ({
    sendLater: v.sendLater,
    sendAt: v.sendLater ? `${v.sendDate}T${v.sendTime ?? '09:00'}` : null,
    timezone: v.sendLater ? v.timezone! : null,
    recurring: v.recurring,
    intervalDays: v.recurring ? (v.interval === 'custom' ? v.customDays! : Number(v.interval)) : null,
  }));

export type EmailSchedule = z.output<typeof EmailScheduleSchema>;

/** The CSV upload's fields besides the file (section 3 "CSV"): the list name, required, at most 30. */
export const RecipientListSchema = z.object({
  listName: z.string({ error: M.listName }).trim().min(1, M.listName).max(EMAIL_LIMITS.listName, M.listNameLength),
});

/** The email Settings step: the general settings and, under `schedule.`, when it is sent. */
export const emailSettingsSchema = (now = new Date()) => settingsSchema(now).and(z.object({ schedule: EmailScheduleSchema }));

/** The recipient list's mapping step: one field per column of the file, Email exactly once (ADR 094). */
export const RecipientListMappingSchema = z.object({
  mapping: z
    .array(z.enum(['ignore', 'email', 'firstName', 'lastName'], { error: 'Choose a field' }))
    .min(1, M.listEmailColumn)
    .superRefine((mapping, ctx) => {
      if (mapping.filter((f) => f === 'email').length !== 1) ctx.addIssue({ code: 'custom', message: M.listEmailColumn });
      for (const f of ['firstName', 'lastName'] as const)
        if (mapping.filter((x) => x === f).length > 1) ctx.addIssue({ code: 'custom', message: `${f === 'firstName' ? 'First name' : 'Last name'} is mapped to more than one column` });
    }),
});
