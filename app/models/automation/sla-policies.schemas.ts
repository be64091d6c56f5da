import { z } from 'zod';
import type { SlaTarget } from '../../../db/schema/automation';
import {
  SLA_PRIORITIES,
  SLA_DEFAULT_RESPONSE,
  SLA_DEFAULT_RESOLVE,
  SLA_MAX_ESCALATION_EMAILS,
  SLA_NAME_MAX,
  SLA_VALUE_MAX,
  SLA_UNITS,
  SLA_NAME_REQUIRED,
  SLA_NAME_TOO_LONG,
  SLA_PRIORITY_REQUIRED,
  SLA_PRIORITY_TWICE,
  SLA_TARGET_REQUIRED,
  SLA_VALUE_NUMBER,
  SLA_VALUE_RANGE,
  SLA_UNIT_REQUIRED,
  SLA_EMAIL_INVALID,
  SLA_EMAIL_REQUIRED,
  SLA_EMAILS_MAX,
  SLA_INBOX_INVALID,
} from './sla-policies-constants';
export * from './sla-policies-constants';

const emptyToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);

/** One duration ("4 hours"): the value is kept as typed so a bad one is shown back, and judged below. */
const DurationSchema = z.object({
  value: z
    .string()
    .trim()
    .optional()
    .superRefine((raw, ctx) => {
      if (!raw || !Number.isFinite(Number(raw))) ctx.addIssue({ code: 'custom', message: SLA_VALUE_NUMBER });
      else if (!Number.isInteger(Number(raw)) || Number(raw) < 1 || Number(raw) > SLA_VALUE_MAX) ctx.addIssue({ code: 'custom', message: SLA_VALUE_RANGE });
    }),
  unit: z.preprocess(emptyToUndefined, z.enum(SLA_UNITS, { error: SLA_UNIT_REQUIRED })),
});

const TargetSchema = z.object({
  priority: z.preprocess(emptyToUndefined, z.enum(SLA_PRIORITIES, { error: SLA_PRIORITY_REQUIRED })),
  response: DurationSchema,
  resolve: DurationSchema,
});

const EMAIL = z.email();

/**
 * The SLA policy form. Escalation rows are always in the page (without JavaScript they cannot appear on a
 * switch) and are judged, kept and stored only when escalation is on.
 */
export const SlaPolicySchema = z
  .object({
    name: z.string({ error: SLA_NAME_REQUIRED }).trim().min(1, SLA_NAME_REQUIRED).max(SLA_NAME_MAX, SLA_NAME_TOO_LONG),
    inboxIds: z.array(z.coerce.number({ error: SLA_INBOX_INVALID }).int(SLA_INBOX_INVALID).positive(SLA_INBOX_INVALID)).default([]),
    targets: z.array(TargetSchema, { error: SLA_TARGET_REQUIRED }).min(1, SLA_TARGET_REQUIRED).max(SLA_PRIORITIES.length),
    isEscalate: z.boolean().default(false),
    escalateTo: z.array(z.string().trim().optional()).max(10).default([]),
    isActive: z.boolean().default(false),
  })
  .superRefine(
    (value, ctx) => {
      // Runs even when other fields failed (`when`), so that every message shows at once: read defensively.
      const targets = Array.isArray(value.targets) ? value.targets : [];
      const seen = new Set<string>();
      targets.forEach((t, i) => {
        if (!t?.priority) return;
        if (seen.has(t.priority))
          ctx.addIssue({
            code: 'custom',
            path: ['targets', i, 'priority'],
            message: SLA_PRIORITY_TWICE,
          });
        seen.add(t.priority);
      });
      if (value.isEscalate !== true) return;
      const all = Array.isArray(value.escalateTo) ? value.escalateTo : [];
      const emails = all.filter(Boolean);
      if (emails.length > SLA_MAX_ESCALATION_EMAILS)
        ctx.addIssue({
          code: 'custom',
          path: ['escalateTo'],
          message: SLA_EMAILS_MAX,
        });
      if (emails.length === 0)
        ctx.addIssue({
          code: 'custom',
          path: ['escalateTo'],
          message: SLA_EMAIL_REQUIRED,
        });
      all.forEach((e, i) => {
        if (e && !EMAIL.safeParse(e).success)
          ctx.addIssue({
            code: 'custom',
            path: ['escalateTo', i],
            message: SLA_EMAIL_INVALID,
          });
      });
    },
    { when: () => true },
  );
export type SlaPolicyForm = z.infer<typeof SlaPolicySchema>;

export type SlaPolicyInput = {
  name: string;
  inboxIds: number[];
  targets: SlaTarget[];
  isEscalate: boolean;
  escalateTo: string[];
  isActive: boolean;
};

/** From the parsed form to what is stored: numbers for values, no escalation addresses when escalation is off. */
export function slaPolicyInput(form: SlaPolicyForm): SlaPolicyInput {
  return {
    name: form.name,
    inboxIds: [...new Set(form.inboxIds)],
    targets: form.targets.map((t) => ({
      priority: t.priority,
      response: { value: Number(t.response.value), unit: t.response.unit },
      resolve: { value: Number(t.resolve.value), unit: t.resolve.unit },
    })),
    isEscalate: form.isEscalate,
    escalateTo: form.isEscalate ? [...new Set(form.escalateTo.filter((e): e is string => Boolean(e)).map((e) => e.toLowerCase()))] : [],
    isActive: form.isActive,
  };
}

/** Section 9 defaults: the five priorities, response 4 hours, resolve 2 days. */
export function defaultSlaTargets(): SlaTarget[] {
  return SLA_PRIORITIES.map((priority) => ({
    priority,
    response: { ...SLA_DEFAULT_RESPONSE },
    resolve: { ...SLA_DEFAULT_RESOLVE },
  }));
}

/** The form's starting values: a stored policy, or the section 9 defaults for a new one. */
export function slaPolicyFormDefaults(policy: SlaPolicyInput | null) {
  const targets = policy?.targets ?? defaultSlaTargets();
  return {
    name: policy?.name ?? '',
    inboxIds: (policy?.inboxIds ?? []).map(String),
    targets: targets.map((t) => ({
      priority: t.priority,
      response: { value: String(t.response.value), unit: t.response.unit },
      resolve: { value: String(t.resolve.value), unit: t.resolve.unit },
    })),
    isEscalate: policy?.isEscalate ?? false,
    // One empty row to type into, so that turning escalation on needs no extra round trip.
    escalateTo: policy?.escalateTo.length ? policy.escalateTo : [''],
    isActive: policy?.isActive ?? true,
  };
}
