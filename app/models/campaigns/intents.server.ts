import { data } from '@remix-run/node';
import type { SubmissionResult } from '@conform-to/react';
import { parseWithZod } from '../../utils/conform.server';
import { redirectWithToast } from '../../utils/toast.server';
import { changeCampaignStatus, deleteCampaign, scheduleCampaign, zonedInstant } from './campaigns.server';
import { CAMPAIGN_TOASTS } from './constants';
import { ScheduleSchema } from './schemas';

export type CampaignActionResult = { form: 'campaign' | 'schedule' | 'test' | 'status'; reply?: SubmissionResult<string[]>; error?: string };

/**
 * The intents every kind of campaign screen shares: schedule (now or at a time in a zone), pause, resume, cancel,
 * unschedule and delete. Returns undefined for an intent it does not know (the route handles its own).
 */
export async function handleSendIntent(opts: { intent: unknown; formData: FormData; accountId: number; actorId: number; id: number; here: string }) {
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
    return redirectWithToast('/campaigns', { type: 'info', text: CAMPAIGN_TOASTS.deleted });
  }
  if (intent === 'pause' || intent === 'resume' || intent === 'cancel' || intent === 'unschedule') {
    if (!(await changeCampaignStatus({ ...who, transition: intent }))) throw new Response('Not Found', { status: 404 });
    const toast = { pause: CAMPAIGN_TOASTS.paused, resume: CAMPAIGN_TOASTS.resumed, cancel: CAMPAIGN_TOASTS.cancelled, unschedule: CAMPAIGN_TOASTS.unscheduled }[intent];
    return redirectWithToast(opts.here, { type: 'info', text: toast });
  }
  return undefined;
}
