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
import { facebookSchema } from '~/models/channels/facebook-schemas';
import {
  checkFacebookSettings,
  createFacebookInbox,
  deleteFacebookInbox,
  describeFacebookInbox,
  facebookSettingsAfter,
  getFacebookInbox,
  updateFacebookInbox,
} from '~/models/channels/facebook.server';
import { businessHoursOptions, submitInboxBusinessHours } from '~/models/automation/business-hours.server';
import { InboxNameTakenError } from '~/models/inbox/inboxes.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { pageTitle } from '~/utils/format';
import { describeChannelHealth, recordChannelSuccess } from '~/models/channels/health.server';
import { readEditorParam } from '~/utils/route-id';
import { can, requirePermission, requireUser } from '~/utils/session.server';
import { bareUrl } from '~/utils/tenant.server';
import { redirectWithToast } from '~/utils/toast.server';

const LIST = '/settings/facebook';

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const id = readEditorParam(params.id);
  const inbox = id === 'new' ? null : await getFacebookInbox({ accountId: ctx.account.id, id });
  if (inbox === undefined) throw new Response('Not Found', { status: 404 });
  const locked = !can(ctx, 'manage_facebook');
  const described = inbox ? describeFacebookInbox(inbox) : null;
  // The verify token is what Meta's dashboard asks for: only those who may manage the inbox see it.
  const health = inbox ? await describeChannelHealth({ accountId: ctx.account.id, inboxId: inbox.id, parts: ['facebook'] }) : [];
  const prefs = { dateFormat: ctx.user.dateFormat, timeFormat: ctx.user.timeFormat, timezone: ctx.user.timezone };
  const hours = { businessHoursId: inbox?.businessHoursId ?? null, businessHours: inbox ? await businessHoursOptions({ accountId: ctx.account.id }) : [] };
  return { inbox: described && locked ? { ...described, verifyToken: '' } : described, locked, health, prefs, ...hours };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_facebook');
  const id = readEditorParam(params.id);
  const formData = await request.formData();
  const intent = formData.get('intent');
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };
  if (intent === 'delete' && id !== 'new') {
    if (!(await deleteFacebookInbox({ ...who, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast(LIST, { type: 'info', text: 'Inbox Deleted' });
  }
  if (intent === 'hours' && id !== 'new') {
    const hours = await submitInboxBusinessHours({ ...who, inboxId: id, channelType: 'facebook', formData });
    if (hours.status === 'missing') throw new Response('Not Found', { status: 404 });
    if (hours.status === 'invalid') return data({ hours: hours.reply }, { status: 400 });
    return redirectWithToast(`${LIST}/${id}`, { type: 'info', text: 'Inbox Updated' });
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: facebookSchema(id === 'new' ? 'create' : 'update') });
  if (submission.status !== 'success') return data(submission.reply({ hideFields: ['pageAccessToken', 'appSecret'] }), { status: 400 });
  // Facebook is asked first (ADR 039): settings it refuses are not saved, and the form says why.
  const existing = id === 'new' ? null : await getFacebookInbox({ accountId: ctx.account.id, id });
  if (existing === undefined) throw new Response('Not Found', { status: 404 });
  const v = submission.value;
  const problem = await checkFacebookSettings(
    existing ? facebookSettingsAfter(existing, v) : { pageId: v.pageId, pageAccessToken: v.pageAccessToken ?? '', appSecret: v.appSecret ?? '' },
  );
  if (problem) return data(submission.reply({ fieldErrors: { [problem.field]: [problem.message] }, hideFields: ['pageAccessToken', 'appSecret'] }), { status: 400 });
  try {
    if (id === 'new') {
      const inbox = await createFacebookInbox({ ...who, input: v, publicBase: bareUrl(request, '') });
      await recordChannelSuccess({ accountId: ctx.account.id, inboxId: inbox.id, part: 'facebook' });
      return redirectWithToast(`${LIST}/${inbox.id}`, 'Inbox Created');
    }
    if (!(await updateFacebookInbox({ ...who, id, input: v }))) throw new Response('Not Found', { status: 404 });
    await recordChannelSuccess({ accountId: ctx.account.id, inboxId: id, part: 'facebook' });
  } catch (err) {
    if (err instanceof InboxNameTakenError) return data(submission.reply({ fieldErrors: { name: ['An inbox with this name already exists'] }, hideFields: ['pageAccessToken', 'appSecret'] }), { status: 400 });
    throw err;
  }
  return redirectWithToast(LIST, { type: 'info', text: 'Inbox Updated' });
}

export const handle = {
  breadcrumb: (loaderData: { inbox: { name: string } | null } | undefined) => (loaderData ? (loaderData.inbox?.name ?? 'Connect Page') : null),
};

export default function FacebookInboxPage() {
  const { inbox, locked, health, prefs, businessHoursId, businessHours } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  // The business hours form answers under its own key; everything else is the main form's.
  const hoursResult = actionData && 'hours' in actionData ? actionData.hours : undefined;
  const lastResult = actionData && !('hours' in actionData) ? actionData : undefined;
  const [form, fields] = useForm<z.input<ReturnType<typeof facebookSchema>>>({
    id: `facebook-${inbox?.id ?? 'new'}`,
    lastResult,
    defaultValue: inbox ? { name: inbox.name, pageId: inbox.pageId } : undefined,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  const keep = inbox ? 'Leave empty to keep the current one' : undefined;
  return (
    <>
      <SettingsPage
        key={inbox?.id ?? 'new'}
        title={inbox ? 'Edit Facebook Page' : 'Connect a Facebook Page'}
        subHeader="Messages to the page in Messenger become conversations; replies are sent with the page's access token."
        learnMore="/help-center"
        locked={locked}
        actions={inbox ? <DeleteConfirm id={`facebook-${inbox.id}`} label="Delete" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} /> : null}
      >
        <Form method="post" {...getFormProps(form)}>
          <fieldset disabled={locked} className="stack">
            <Field label="Inbox Name" field={fields.name} autoComplete="off" maxLength={SOCIAL_NAME_MAX} />
            <Field label="Page ID" field={fields.pageId} autoComplete="off" inputMode="numeric" />
            <Field
              label="Page Access Token"
              field={fields.pageAccessToken}
              type="password"
              autoComplete="off"
              maxLength={SOCIAL_SECRET_MAX}
              hint={inbox?.pageAccessTokenHint ? `${keep} (${inbox.pageAccessTokenHint})` : keep}
            />
            <Field
              label="App Secret"
              field={fields.appSecret}
              type="password"
              autoComplete="off"
              maxLength={SOCIAL_SECRET_MAX}
              hint={inbox?.appSecretHint ? `${keep} (${inbox.appSecretHint})` : (keep ?? 'Meta signs its webhooks with it (X-Hub-Signature-256).')}
            />
          </fieldset>
          {inbox && !locked ? (
            <div className="stack" data-testid="webhook-setup">
              <p className="muted">In your Meta app, subscribe the page&apos;s webhook (messages) with:</p>
              <p>
                Callback URL: <code>{inbox.callbackUrl}</code>
              </p>
              <p>
                Verify token: <code>{inbox.verifyToken}</code>
              </p>
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

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [{ title: pageTitle(loaderData?.inbox?.name ?? 'Connect Page', 'Facebook', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
