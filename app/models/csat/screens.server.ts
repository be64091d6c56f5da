import { data } from '@remix-run/node';
import type { Params } from '@remix-run/react';
import { parseWithZod } from '../../utils/conform.server';
import { accountZone } from '../analytics/access.server';
import { dayStart } from '../analytics/range.server';
import { readEditorParam } from '../../utils/route-id';
import { can, requireFeature, requirePermission, requireUser } from '../../utils/session.server';
import { redirectWithToast } from '../../utils/toast.server';
import { CSAT_TOASTS } from './constants';
import { csatLogoPath, csatResults, CsatInputError, deleteCsatSurvey, getCsatSurvey, listCsatInboxes, listCsatSurveys, renderCsatEmail, saveCsatSurvey, setCsatLogo, type CsatGroup } from './csat.server';
import { CSAT_DEFAULTS } from './constants';
import { ChatCsatSchema, EmailCsatSchema } from './schemas';

/**
 * The loaders and actions of Settings → Customer Satisfaction, shared by the email-survey and chat-survey routes (the
 * same screens for two kinds): the plan feature of the kind and manage_surveys first.
 */
type Kind = 'email' | 'chat';
const FEATURE = { email: 'customerSatisfactionSurveys/emailSurveys', chat: 'customerSatisfactionSurveys/chatSurveys' } as const;
const GROUPS: CsatGroup[] = ['agent', 'team', 'inbox', 'day', 'week', 'month'];

async function guard(request: Request, kind: Kind, write: boolean) {
  const ctx = write ? await requirePermission(request, 'manage_surveys') : await requireUser(request);
  await requireFeature(request, FEATURE[kind], ctx);
  if (!write && !can(ctx, 'manage_surveys')) throw new Response('Forbidden', { status: 403 });
  return ctx;
}

export async function csatListLoader(request: Request, kind: Kind) {
  const ctx = await guard(request, kind, false);
  const url = new URL(request.url);
  const by = (GROUPS as string[]).includes(url.searchParams.get('by') ?? '') ? (url.searchParams.get('by') as CsatGroup) : 'agent';
  const day = /^\d{4}-\d{2}-\d{2}$/;
  const toParam = url.searchParams.get('to') ?? '';
  const fromParam = url.searchParams.get('from') ?? '';
  // The period's days are the account's days, cut like analytics cuts them (ADR 090, ADR 094): from local midnight
  // of `from` to the end of local `to` in the account's default time zone.
  const timezone = accountZone(ctx);
  const today = new Intl.DateTimeFormat('sv-SE', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
  const toDay = day.test(toParam) ? toParam : today;
  const fromDay = day.test(fromParam) ? fromParam : new Date(Date.parse(`${toDay}T00:00:00Z`) - 29 * 86_400_000).toISOString().slice(0, 10);
  const from = dayStart(fromDay, timezone);
  const end = dayStart(new Date(Date.parse(`${toDay}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10), timezone);
  const [surveys, inboxes, results] = await Promise.all([
    listCsatSurveys({ accountId: ctx.account.id, kind }),
    listCsatInboxes({ accountId: ctx.account.id, kind }),
    csatResults({ accountId: ctx.account.id, from, to: end, by, timezone }),
  ]);
  const names = new Map(inboxes.map((i) => [i.id, i.name]));
  return {
    surveys: surveys.map((s) => ({ id: s.id, subject: s.subject, inboxes: s.inboxIds.map((id) => names.get(id) ?? `#${id}`), ratingsType: s.ratingsType })),
    results,
    by,
    from: fromDay,
    to: toDay,
  };
}

export async function csatEditorLoader(request: Request, params: Params, kind: Kind) {
  const ctx = await guard(request, kind, false);
  const id = readEditorParam(params.id);
  const survey = id === 'new' ? null : await getCsatSurvey({ accountId: ctx.account.id, kind, id });
  if (survey === undefined) throw new Response('Not Found', { status: 404 });
  const inboxes = await listCsatInboxes({ accountId: ctx.account.id, kind });
  return {
    survey: survey
      ? {
          id: survey.id,
          inboxIds: survey.inboxIds,
          subject: survey.subject,
          heading: survey.heading,
          subHeading: survey.subHeading,
          footer: survey.footer,
          ratingsType: survey.ratingsType,
          commentEnabled: survey.commentEnabled,
          commentEnabledBelow: String(survey.commentEnabledBelow),
          commentTitle: survey.commentTitle,
          finishText: survey.finishText,
          allowMultipleFeedback: survey.allowMultipleFeedback,
        }
      : null,
    inboxes,
    locked: !can(ctx, 'manage_surveys'),
    logoUrl: survey?.logoAttachmentId ? csatLogoPath(ctx.account.id, survey) : null,
    // The email as the customer gets it (the saved values, a sample customer), in a sandboxed frame.
    preview:
      kind === 'email'
        ? renderCsatEmail({
            survey: survey ?? { subject: 'How did we do?', heading: '', subHeading: '', footer: '', ratingsType: CSAT_DEFAULTS.ratingsType },
            name: 'Jane Doe',
            email: 'jane@example.com',
            link: () => '#',
            unsubscribe: '#',
            logoUrl: survey?.logoAttachmentId ? csatLogoPath(ctx.account.id, survey) : null,
          }).html
        : null,
  };
}

export async function csatEditorAction(request: Request, params: Params, kind: Kind) {
  const ctx = await guard(request, kind, true);
  const id = readEditorParam(params.id);
  const formData = await request.formData();
  const intent = formData.get('intent');
  const list = `/settings/${kind}-survey`;
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };
  if (intent === 'delete' && id !== 'new') {
    if (!(await deleteCsatSurvey({ ...who, kind, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(list, { type: 'info', text: CSAT_TOASTS.deleted });
  }
  if ((intent === 'logo-upload' || intent === 'logo-remove') && kind === 'email' && id !== 'new') {
    const file = formData.get('logo');
    try {
      const done = await setCsatLogo({ ...who, id, file: intent === 'logo-remove' ? 'remove' : file instanceof File ? file : null });
      if (!done) throw new Response('Not Found', { status: 404 });
    } catch (err) {
      if (err instanceof CsatInputError) return data({ logoError: err.message }, { status: 400 });
      throw err;
    }
    return redirectWithToast(`${list}/${id}`, intent === 'logo-upload' ? CSAT_TOASTS.logoUploaded : { type: 'info', text: CSAT_TOASTS.logoRemoved });
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: kind === 'email' ? EmailCsatSchema : ChatCsatSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  try {
    const saved = await saveCsatSurvey({ ...who, id, input: { kind, ...submission.value } as never });
    if (!saved) throw new Response('Not Found', { status: 404 });
  } catch (err) {
    if (err instanceof CsatInputError) return data(submission.reply({ fieldErrors: { [err.field]: [err.message] } }), { status: 400 });
    throw err;
  }
  return redirectWithToast(list, id === 'new' ? CSAT_TOASTS.created : { type: 'info', text: CSAT_TOASTS.updated });
}
