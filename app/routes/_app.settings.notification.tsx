import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { browserCanPush, prepareBrowserPush, PUSH_UNSUPPORTED_MESSAGE } from '~/components/notifications/desktop-notifications';
import { CheckboxField, ErrorList } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { vapidKeysFor } from '~/models/campaigns/push.server';
import {
  describeAgentBrowser,
  listAgentPushSubscriptions,
  parseAgentPushSubscription,
  PushInputError,
  subscribeAgentPush,
  unsubscribeAgentPush,
} from '~/models/notifications/browser-push.server';
import { updateNotificationPreferences } from '~/models/users/profile.server';
import { NOTIFICATION_PREFERENCE_LABELS, readNotificationPreferences } from '~/models/users/constants';
import { NotificationPreferencesSchema } from '~/models/users/schemas';
import { formatDateTime, pageTitle } from '~/utils/format';
import { requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

const PATH = '/settings/notification';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const scope = { accountId: ctx.account.id, userId: ctx.user.id };
  const browsers = await listAgentPushSubscriptions(scope);
  return {
    preferences: readNotificationPreferences(ctx.user.notificationPreferences),
    // The account's VAPID key, the one campaigns sign with (ADR 083, 155): this browser subscribes with it.
    vapidPublicKey: (await vapidKeysFor({ accountId: ctx.account.id })).publicKey,
    browsers: browsers.map((b) => ({
      id: b.id,
      name: describeAgentBrowser(b.userAgent),
      since: formatDateTime(b.createdAt, ctx.user),
      lastSuccess: b.lastSuccessAt ? formatDateTime(b.lastSuccessAt, ctx.user) : null,
      lastFailure: b.lastFailureAt && (!b.lastSuccessAt || b.lastFailureAt > b.lastSuccessAt) ? `${formatDateTime(b.lastFailureAt, ctx.user)}: ${b.lastFailure ?? 'failed'}` : null,
    })),
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requireUser(request);
  const scope = { accountId: ctx.account.id, userId: ctx.user.id };
  const formData = await request.formData();
  const intent = formData.get('intent');
  if (intent === 'remove-browser') {
    const id = Number(formData.get('id'));
    if (!Number.isSafeInteger(id) || id <= 0) throw new Response('Unknown browser', { status: 400 });
    const removed = await unsubscribeAgentPush({ ...scope, id });
    if (!removed) return redirectWithToast(PATH, { type: 'error', text: 'That browser was already removed' });
    return redirectWithToast(PATH, 'This browser no longer receives desktop notifications');
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: NotificationPreferencesSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  // The browser's subscription, posted by the page's script when the option is on (checked before anything is saved).
  const posted = formData.get('pushSubscription');
  let subscription: ReturnType<typeof parseAgentPushSubscription> | null = null;
  if (submission.value.browserPush && typeof posted === 'string' && posted !== '') {
    try {
      subscription = parseAgentPushSubscription(posted);
    } catch (err) {
      if (err instanceof PushInputError) return data(submission.reply({ formErrors: [err.message] }), { status: 400 });
      throw err;
    }
  }
  await updateNotificationPreferences({ ...scope, preferences: submission.value });
  if (!submission.value.browserPush) {
    // Off: no browser of this agent is pushed to any more (the page's script also ends this browser's subscription).
    await unsubscribeAgentPush(scope);
    return redirectWithToast(PATH, 'Settings Updated');
  }
  if (subscription) {
    await subscribeAgentPush({ ...scope, subscription, userAgent: request.headers.get('user-agent') });
    return redirectWithToast(PATH, 'Settings Updated. This browser shows desktop notifications.');
  }
  if ((await listAgentPushSubscriptions(scope)).length === 0) {
    return redirectWithToast(PATH, {
      type: 'info',
      text: 'Settings Updated. No browser shows your desktop notifications yet: they need JavaScript in the browser that should show them.',
    });
  }
  return redirectWithToast(PATH, 'Settings Updated');
}

export const handle = { breadcrumb: 'Notification' };

export default function NotificationSettings() {
  const { preferences, vapidPublicKey, browsers } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    lastResult,
    defaultValue: Object.fromEntries(Object.entries(preferences).map(([k, v]) => [k, v ? 'on' : ''])),
  });
  const formProps = getFormProps(form);
  const subscriptionInput = useRef<HTMLInputElement>(null);
  const ready = useRef(false);
  const [pushError, setPushError] = useState<string | null>(null);
  const [supported, setSupported] = useState(true);
  useEffect(() => setSupported(browserCanPush()), []);

  // With JavaScript, saving with the option on first asks this browser for permission and subscribes it (the save
  // click is the user's gesture the browser wants); saving with it off ends this browser's subscription.
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    if (ready.current) {
      ready.current = false;
      return formProps.onSubmit(event);
    }
    event.preventDefault();
    const formEl = event.currentTarget;
    const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLElement | null;
    const on = (formEl.elements.namedItem('browserPush') as HTMLInputElement | null)?.checked ?? false;
    setPushError(null);
    prepareBrowserPush(on, vapidPublicKey).then(
      (json) => {
        if (subscriptionInput.current) subscriptionInput.current.value = json ?? '';
        ready.current = true;
        formEl.requestSubmit(submitter ?? undefined);
      },
      (err: Error) => setPushError(err.message || PUSH_UNSUPPORTED_MESSAGE),
    );
  };

  return (
    <div className="stack">
      <SettingsPage title="Notification" subHeader="Choose which notifications reach you, and how.">
        <Form method="post" {...formProps} onSubmit={onSubmit}>
          {(Object.keys(NOTIFICATION_PREFERENCE_LABELS) as (keyof typeof NOTIFICATION_PREFERENCE_LABELS)[]).map((key) => (
            <CheckboxField key={key} label={NOTIFICATION_PREFERENCE_LABELS[key]} field={fields[key]} />
          ))}
          <p className="muted" id="browser-push-hint">
            Browser push notifications show on your desktop what reaches your bell: conversations assigned to you or your team, customers writing in your
            conversations, mentions and SLA warnings and breaches, even with no Parley tab open.
          </p>
          <noscript>
            <p className="muted" data-testid="browser-push-needs-js">
              Browser notifications need JavaScript in this browser: with it turned off, this browser cannot be subscribed. Your choice is still saved, and
              browsers where you saved it with JavaScript on keep receiving them.
            </p>
          </noscript>
          {supported ? null : <p className="muted">{PUSH_UNSUPPORTED_MESSAGE}</p>}
          <input ref={subscriptionInput} type="hidden" name="pushSubscription" defaultValue="" />
          {pushError ? (
            <p className="field-error" role="alert" data-testid="browser-push-error">
              {pushError}
            </p>
          ) : null}
          <ErrorList id={form.errorId} errors={form.errors} />
          <FormActions cancelTo={PATH} intent="save" />
        </Form>
      </SettingsPage>
      <SettingsPage title="Browsers" subHeader="The browsers that show your desktop notifications.">
        {browsers.length === 0 ? (
          <p className="muted" data-testid="no-push-browsers">
            No browser shows your desktop notifications.
          </p>
        ) : (
          <ul className="stack" data-testid="push-browsers">
            {browsers.map((b) => (
              <li key={b.id}>
                <Form method="post" className="row">
                  <div>
                    <strong>{b.name}</strong>
                    <div className="muted">
                      Since {b.since}
                      {b.lastSuccess ? `; last delivered ${b.lastSuccess}` : ''}
                    </div>
                    {b.lastFailure ? <div className="field-error">Last send failed {b.lastFailure}</div> : null}
                  </div>
                  <input type="hidden" name="id" value={b.id} />
                  <button type="submit" className="btn" name="intent" value="remove-browser">
                    Remove
                  </button>
                </Form>
              </li>
            ))}
          </ul>
        )}
      </SettingsPage>
    </div>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Notification', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
