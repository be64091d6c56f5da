import { data } from '@remix-run/node';
import type { SubmissionResult } from '@conform-to/react';
import { parseWithZod } from '../../utils/conform.server';
import { redirectWithToast } from '../../utils/toast.server';
import type { z } from 'zod';
import { FieldInputError } from '../productivity/shared.server';
import { CampaignStateError, changeCampaignStatus, deleteCampaign, scheduleCampaign, zonedInstant } from './campaigns.server';
import { campaignListPath, CAMPAIGN_TOASTS, type CampaignKind } from './constants';
import { parseRowId } from '../../utils/route-id';
import { ScheduleSchema } from './schemas';

export type CampaignActionResult = { form: 'campaign' | 'schedule' | 'test' | 'status'; reply?: SubmissionResult<string[]>; error?: string };

/**
 * The intents every kind of campaign screen shares: schedule (now or at a time in a zone), pause, resume, cancel,
 * unschedule and delete. Returns undefined for an intent it does not know (the route handles its own).
 */
export async function handleSendIntent(opts: { intent: unknown; formData: FormData; accountId: number; actorId: number; id: number; here: string; list: string }) {
  const who = { accountId: opts.accountId, actorId: opts.actorId, id: opts.id };
  const { intent } = opts;
  if (intent === 'schedule') {
    const submission = parseWithZod(opts.formData, { schema: ScheduleSchema });
    if (submission.status !== 'success') return data<CampaignActionResult>({ form: 'schedule', reply: submission.reply() }, { status: 400 });
    const { when, scheduledAt, timeZone } = submission.value;
    const at = when === 'later' && scheduledAt ? zonedInstant(scheduledAt, timeZone) : undefined;
    if (when === 'later' && (!at || at.getTime() <= Date.now())) {
      return data<CampaignActionResult>({ form: 'schedule', reply: submission.reply({ fieldErrors: { scheduledAt: ['Choose a time in the future'] } }) }, { status: 400 });
    }
    if (!(await scheduleCampaign({ ...who, at: at ?? undefined, timeZone }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(opts.here, at ? CAMPAIGN_TOASTS.scheduled : CAMPAIGN_TOASTS.started);
  }
  if (intent === 'delete') {
    if (!(await deleteCampaign(who))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(opts.list, { type: 'info', text: CAMPAIGN_TOASTS.deleted });
  }
  if (intent === 'pause' || intent === 'resume' || intent === 'cancel' || intent === 'unschedule') {
    if (!(await changeCampaignStatus({ ...who, transition: intent }))) throw new Response('Not Found', { status: 404 });
    const toast = { pause: CAMPAIGN_TOASTS.paused, resume: CAMPAIGN_TOASTS.resumed, cancel: CAMPAIGN_TOASTS.cancelled, unschedule: CAMPAIGN_TOASTS.unscheduled }[intent];
    return redirectWithToast(opts.here, { type: 'info', text: toast });
  }
  return undefined;
}

/**
 * The whole action of a campaign editor screen (email, SMS…): `save` validates with the kind's schema and creates or
 * updates, the shared send intents follow, then the kind's own intents (`extra`, e.g. the email test send). A
 * refused status change answers 409 with its message; an unknown intent 400.
 */
export async function campaignEditorAction<V extends object>(opts: {
  formData: FormData;
  accountId: number;
  actorId: number;
  id: number | 'new';
  kind: CampaignKind;
  schema: z.ZodType<V>;
  create: (values: V & { accountId: number; actorId: number }) => Promise<{ id: number }>;
  update: (values: V & { accountId: number; actorId: number; id: number }) => Promise<unknown>;
  extra?: (intent: unknown, id: number) => Promise<Response | ReturnType<typeof data> | undefined>;
}) {
  const intent = opts.formData.get('intent');
  const who = { accountId: opts.accountId, actorId: opts.actorId };
  const here = (campaignId: number) => `/campaigns/${opts.kind}/${campaignId}`;
  try {
    if (intent === 'save') {
      const submission = parseWithZod(opts.formData, { schema: opts.schema });
      if (submission.status !== 'success') return data<CampaignActionResult>({ form: 'campaign', reply: submission.reply() }, { status: 400 });
      try {
        if (opts.id === 'new') {
          const row = await opts.create({ ...who, ...submission.value });
          return redirectWithToast(here(row.id), CAMPAIGN_TOASTS.created);
        }
        if (!(await opts.update({ ...who, id: opts.id, ...submission.value }))) throw new Response('Not Found', { status: 404 });
        return redirectWithToast(here(opts.id), { type: 'info', text: CAMPAIGN_TOASTS.updated });
      } catch (err) {
        if (err instanceof FieldInputError) return data<CampaignActionResult>({ form: 'campaign', reply: submission.reply({ fieldErrors: { [err.field]: [err.message] } }) }, { status: 400 });
        throw err;
      }
    }
    if (opts.id !== 'new') {
      const shared = (await handleSendIntent({ intent, formData: opts.formData, ...who, id: opts.id, here: here(opts.id), list: campaignListPath(opts.kind) })) ?? (await opts.extra?.(intent, opts.id));
      if (shared) return shared;
    }
  } catch (err) {
    if (err instanceof CampaignStateError) return data<CampaignActionResult>({ form: 'status', error: err.message }, { status: 409 });
    throw err;
  }
  throw new Response('Unknown intent', { status: 400 });
}

/**
 * The action of a campaign list (all campaigns or one kind's): deleting a row, back to the same list. A campaign
 * that is sending answers 409 with its message; an unknown intent or a bad id 400.
 */
export async function campaignListAction(opts: { formData: FormData; accountId: number; actorId: number; list: string }) {
  if (opts.formData.get('intent') !== 'delete') throw new Response('Unknown intent', { status: 400 });
  const id = parseRowId(opts.formData.get('id'));
  if (!id) throw new Response('Bad Request', { status: 400 });
  try {
    if (!(await deleteCampaign({ accountId: opts.accountId, actorId: opts.actorId, id }))) throw new Response('Not Found', { status: 404 });
  } catch (err) {
    if (err instanceof CampaignStateError) return data({ error: err.message }, { status: 409 });
    throw err;
  }
  return redirectWithToast(opts.list, { type: 'info', text: CAMPAIGN_TOASTS.deleted });
}
