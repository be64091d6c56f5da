import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { CheckboxField, ErrorList } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { updateNotificationPreferences } from '~/models/users/profile.server';
import { NOTIFICATION_PREFERENCE_LABELS, readNotificationPreferences } from '~/models/users/constants';
import { NotificationPreferencesSchema } from '~/models/users/schemas';
import { pageTitle } from '~/utils/format';
import { requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  return { preferences: readNotificationPreferences(ctx.user.notificationPreferences) };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requireUser(request);
  const formData = await request.formData();
  if (formData.get('intent') !== 'save') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: NotificationPreferencesSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  await updateNotificationPreferences({ accountId: ctx.account.id, userId: ctx.user.id, preferences: submission.value });
  return redirectWithToast('/settings/notification', 'Settings Updated');
}

export const handle = { breadcrumb: 'Notification' };

export default function NotificationSettings() {
  const { preferences } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    lastResult,
    defaultValue: Object.fromEntries(Object.entries(preferences).map(([k, v]) => [k, v ? 'on' : ''])),
  });
  return (
    <SettingsPage title="Notification" subHeader="Choose which notifications reach you, and how.">
      <Form method="post" {...getFormProps(form)}>
        {(Object.keys(NOTIFICATION_PREFERENCE_LABELS) as (keyof typeof NOTIFICATION_PREFERENCE_LABELS)[]).map((key) => (
          <CheckboxField key={key} label={NOTIFICATION_PREFERENCE_LABELS[key]} field={fields[key]} />
        ))}
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo="/settings/notification" intent="save" />
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Notification', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
