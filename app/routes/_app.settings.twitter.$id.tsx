import type { z } from 'zod';
import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { InboxBusinessHoursForm } from '~/components/automation/inbox-business-hours';
import { ChannelHealthPanel } from '~/components/channel-health';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { SOCIAL_NAME_MAX, SOCIAL_SECRET_MAX } from '~/models/channels/social-constants';
import { twitterSchema } from '~/models/channels/twitter-schemas';
import { checkTwitterSettings, createTwitterInbox, deleteTwitterInbox, describeTwitterInbox, getTwitterInbox, twitterSettingsAfter, updateTwitterInbox } from '~/models/channels/twitter.server';
import { businessHoursOptions, submitInboxBusinessHours } from '~/models/automation/business-hours.server';
import { InboxNameTakenError } from '~/models/inbox/inboxes.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { pageTitle } from '~/utils/format';
import { describeChannelHealth, recordChannelSuccess } from '~/models/channels/health.server';
import { readEditorParam } from '~/utils/route-id';
import { can, requirePermission, requireUser } from '~/utils/session.server';
import { bareUrl } from '~/utils/tenant.server';
import { redirectWithToast } from '~/utils/toast.server';

const LIST = '/settings/twitter';
const SECRETS = ['consumerSecret', 'accessToken'];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const id = readEditorParam(params.id);
  const inbox = id === 'new' ? null : await getTwitterInbox({ accountId: ctx.account.id, id });
  if (inbox === undefined) throw new Response('Not Found', { status: 404 });
  const health = inbox ? await describeChannelHealth({ accountId: ctx.account.id, inboxId: inbox.id, parts: ['twitter'] }) : [];
  const prefs = { dateFormat: ctx.user.dateFormat, timeFormat: ctx.user.timeFormat, timezone: ctx.user.timezone };
  const hours = { businessHoursId: inbox?.businessHoursId ?? null, businessHours: inbox ? await businessHoursOptions({ accountId: ctx.account.id }) : [] };
  return { inbox: inbox ? describeTwitterInbox(inbox) : null, locked: !can(ctx, 'manage_twitter'), health, prefs, ...hours };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_twitter');
  const id = readEditorParam(params.id);
  const formData = await request.formData();
  const intent = formData.get('intent');
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };
  if (intent === 'delete' && id !== 'new') {
    if (!(await deleteTwitterInbox({ ...who, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(LIST, { type: 'info', text: 'Inbox Deleted' });
  }
  if (intent === 'hours' && id !== 'new') {
    const hours = await submitInboxBusinessHours({ ...who, inboxId: id, channelType: 'twitter', formData });
    if (hours.status === 'missing') throw new Response('Not Found', { status: 404 });
    if (hours.status === 'invalid') return data({ hours: hours.reply }, { status: 400 });
    return redirectWithToast(`${LIST}/${id}`, { type: 'info', text: 'Inbox Updated' });
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: twitterSchema(id === 'new' ? 'create' : 'update') });
  if (submission.status !== 'success') return data(submission.reply({ hideFields: SECRETS }), { status: 400 });
  // X is asked first (ADR 039): settings it refuses are not saved, and the form says why.
  const existing = id === 'new' ? null : await getTwitterInbox({ accountId: ctx.account.id, id });
  if (existing === undefined) throw new Response('Not Found', { status: 404 });
  const v = submission.value;
  const problem = await checkTwitterSettings(existing ? twitterSettingsAfter(existing, v) : { userId: v.userId, accessToken: v.accessToken ?? '' });
  if (problem) return data(submission.reply({ fieldErrors: { [problem.field]: [problem.message] }, hideFields: SECRETS }), { status: 400 });
  try {
    if (id === 'new') {
      const inbox = await createTwitterInbox({ ...who, input: v, publicBase: bareUrl(request, '') });
      await recordChannelSuccess({ accountId: ctx.account.id, inboxId: inbox.id, part: 'twitter' });
      return redirectWithToast(`${LIST}/${inbox.id}`, 'Inbox Created');
    }
    if (!(await updateTwitterInbox({ ...who, id, input: v }))) throw new Response('Not Found', { status: 404 });
    await recordChannelSuccess({ accountId: ctx.account.id, inboxId: id, part: 'twitter' });
  } catch (err) {
    if (err instanceof InboxNameTakenError) return data(submission.reply({ fieldErrors: { name: ['An inbox with this name already exists'] }, hideFields: SECRETS }), { status: 400 });
    throw err;
  }
  return redirectWithToast(LIST, { type: 'info', text: 'Inbox Updated' });
}

export const handle = {
  breadcrumb: (loaderData: { inbox: { name: string } | null } | undefined) => (loaderData ? (loaderData.inbox?.name ?? 'Connect Account') : null),
};

export default function TwitterInboxPage() {
  const { inbox, locked, health, prefs, businessHoursId, businessHours } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  // The business hours form answers under its own key; everything else is the main form's.
  const hoursResult = actionData && 'hours' in actionData ? actionData.hours : undefined;
  const lastResult = actionData && !('hours' in actionData) ? actionData : undefined;
  const [form, fields] = useForm<z.input<ReturnType<typeof twitterSchema>>>({
    id: `twitter-${inbox?.id ?? 'new'}`,
    lastResult,
    defaultValue: inbox ? { name: inbox.name, userId: inbox.userId } : undefined,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const keep = inbox ? 'Leave empty to keep the current one' : undefined;
  return (
    <>
      <SettingsPage
        key={inbox?.id ?? 'new'}
        title={inbox ? 'Edit X Account' : 'Connect an X Account'}
        subHeader="Direct messages to the account become conversations; replies are sent as direct messages."
        learnMore="/help-center"
        locked={locked}
        actions={inbox ? <DeleteConfirm id={`twitter-${inbox.id}`} label="Delete" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} /> : null}
      >
        <Form method="post" {...getFormProps(form)}>
          <fieldset disabled={locked} className="stack">
            <Field label="Inbox Name" field={fields.name} autoComplete="off" maxLength={SOCIAL_NAME_MAX} />
            <Field label="Account User ID" field={fields.userId} autoComplete="off" inputMode="numeric" />
            <Field
              label="API Key Secret"
              field={fields.consumerSecret}
              type="password"
              autoComplete="off"
              maxLength={SOCIAL_SECRET_MAX}
              hint={inbox?.consumerSecretHint ? `${keep} (${inbox.consumerSecretHint})` : (keep ?? 'The app’s consumer secret: X signs its webhooks and CRC checks with it.')}
            />
            <Field
              label="User Access Token"
              field={fields.accessToken}
              type="password"
              autoComplete="off"
              maxLength={SOCIAL_SECRET_MAX}
              hint={inbox?.accessTokenHint ? `${keep} (${inbox.accessTokenHint})` : (keep ?? 'An OAuth 2.0 user token of the account with the dm.read and dm.write scopes.')}
            />
          </fieldset>
          {inbox && !locked ? (
            <div className="stack" data-testid="webhook-setup">
              <p className="muted">Register this webhook URL for the account&apos;s Account Activity subscription:</p>
              <code>{inbox.webhookUrl}</code>
            </div>
          ) : null}
          <ErrorList id={form.errorId} errors={form.errors} />
          <FormActions cancelTo={LIST} submitLabel={inbox ? 'Update' : 'Create'} intent="save" locked={locked} />
        </Form>
      </SettingsPage>
      {inbox && health.length > 0 ? <ChannelHealthPanel rows={health} prefs={prefs} /> : null}
      {inbox ? (
        <InboxBusinessHoursForm key={inbox.id} inboxId={inbox.id} current={businessHoursId} options={businessHours} locked={locked} cancelTo={LIST} lastResult={hoursResult} />
      ) : null}
    </>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [{ title: pageTitle(loaderData?.inbox?.name ?? 'Connect Account', 'Twitter', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
