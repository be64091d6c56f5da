import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { CheckboxField, ErrorList, Field, SelectField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { updateAccountSecurity, updateAccountSettings } from '~/models/accounts/accounts.server';
import { LANGUAGES } from '~/models/accounts/constants';
import { AccountSecuritySchema, AccountSettingsSchema } from '~/models/accounts/schemas';
import { IDLE_SIGN_OUT_CHOICES } from '~/models/accounts/constants';
import { pageTitle, timeZoneNames } from '~/utils/format';
import { can, requirePermission, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

/** Everyone signed in may read the organisation's settings; only manage_general_settings may change them. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const { account } = ctx;
  return {
    locked: !can(ctx, 'manage_general_settings'),
    domain: account.domain,
    settings: {
      name: account.name,
      supportEmail: account.settings.supportEmail ?? '',
      defaultTimezone: account.settings.defaultTimezone ?? 'UTC',
      language: account.settings.language ?? 'en',
    },
    security: {
      requireTwoFactor: Boolean(account.settings.requireTwoFactor),
      idleSignOutMinutes: String(account.settings.idleSignOutMinutes ?? 0),
    },
    timeZones: timeZoneNames(),
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_general_settings');
  const formData = await request.formData();
  const intent = formData.get('intent');
  if (intent === 'security') {
    const submission = parseWithZod(formData, { schema: AccountSecuritySchema });
    if (submission.status !== 'success') return data({ intent, result: submission.reply() }, { status: 400 });
    await updateAccountSecurity({ accountId: ctx.account.id, userId: ctx.user.id, ...submission.value });
    return redirectWithToast('/settings/account-settings', 'Settings Updated');
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: AccountSettingsSchema });
  if (submission.status !== 'success') return data({ intent, result: submission.reply() }, { status: 400 });
  const { name, supportEmail, defaultTimezone, language } = submission.value;
  await updateAccountSettings({
    accountId: ctx.account.id,
    userId: ctx.user.id,
    name,
    // An emptied support address is cleared, not kept from before.
    settings: { supportEmail: supportEmail ?? undefined, defaultTimezone, language },
  });
  return redirectWithToast('/settings/account-settings', 'Settings Updated');
}

export const handle = { breadcrumb: 'Account Settings' };

export default function AccountSettings() {
  const { locked, domain, settings, security, timeZones } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: 'save',
    lastResult: actionData?.intent === 'save' ? actionData.result : undefined,
    defaultValue: settings,
    shouldValidate: 'onSubmit',
  });
  const [securityForm, securityFields] = useForm({
    id: 'security',
    lastResult: actionData?.intent === 'security' ? actionData.result : undefined,
    defaultValue: security,
    shouldValidate: 'onSubmit',
  });
  return (
    <div className="stack">
    <SettingsPage title="Account Settings" subHeader="Your organisation's name and general settings." locked={locked}>
      <Form method="post" {...getFormProps(form)}>
        <fieldset disabled={locked} className="stack">
          <Field label="Organisation name" field={fields.name} disabled={locked} />
          <p className="muted">
            Account domain: <strong>{domain}</strong>
          </p>
          <Field label="Support email" field={fields.supportEmail} type="email" disabled={locked} />
          <SelectField label="Default time zone" field={fields.defaultTimezone} options={timeZones.map((z) => ({ value: z, label: z }))} disabled={locked} />
          <SelectField label="Language" field={fields.language} options={LANGUAGES} disabled={locked} />
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo="/settings/account-settings" intent="save" locked={locked} />
      </Form>
    </SettingsPage>
    {/* The page's one locked note (above) speaks for both cards. */}
    <SettingsPage title="Account security" subHeader="How everyone in the organisation signs in and how long an unattended session stays open." learnMore="/help-center/account-security#two-factor-sign-in">
      <Form method="post" {...getFormProps(securityForm)}>
        <fieldset disabled={locked} className="stack">
          <CheckboxField label="Require two-factor sign-in for everyone (users without it set it up when they next sign in)" field={securityFields.requireTwoFactor} disabled={locked} />
          <SelectField
            label="Sign out after inactivity"
            field={securityFields.idleSignOutMinutes}
            options={IDLE_SIGN_OUT_CHOICES.map((m) => ({ value: String(m), label: m === 0 ? 'Never' : m < 60 ? `${m} minutes` : m === 60 ? '1 hour' : `${m / 60} hours` }))}
            disabled={locked}
          />
        </fieldset>
        <ErrorList id={securityForm.errorId} errors={securityForm.errors} />
        <FormActions cancelTo="/settings/account-settings" intent="security" locked={locked} submitLabel="Update security" />
      </Form>
    </SettingsPage>
    </div>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Account Settings', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
