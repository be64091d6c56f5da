import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, MaxPartSizeExceededError, unstable_createMemoryUploadHandler, unstable_parseMultipartFormData } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Avatar } from '~/components/shell/shell';
import { ErrorList, Field, SelectField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { changePassword, removeAvatar, setAvatar, updateProfile } from '~/models/users/profile.server';
import { AVATAR_SIZE_MESSAGE, AVATAR_TYPE_MESSAGE, MAX_AVATAR_BYTES } from '~/models/users/constants';
import { AvatarSchema, ChangePasswordSchema, ProfileSchema } from '~/models/users/schemas';
import { DATE_FORMATS, TIME_FORMATS, formatDate, pageTitle, timeZoneNames } from '~/utils/format';
import { publicUser, requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  return { user: publicUser(ctx), timeZones: timeZoneNames() };
}

type ActionResult = { intent: 'profile' | 'avatar' | 'password'; result: SubmissionResult<string[]> };

const PROFILE_PATH = '/settings/my-profile';

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requireUser(request);
  const scope = { accountId: ctx.account.id, userId: ctx.user.id };
  const formData = await readForm(request);
  if (!formData) {
    return data<ActionResult>({ intent: 'avatar', result: { status: 'error', error: { avatar: [AVATAR_SIZE_MESSAGE] } } }, { status: 400 });
  }
  const intent = formData.get('intent');
  switch (intent) {
    case 'profile': {
      const submission = parseWithZod(formData, { schema: ProfileSchema });
      if (submission.status !== 'success') return data<ActionResult>({ intent, result: submission.reply() }, { status: 400 });
      await updateProfile({ ...scope, ...submission.value });
      return redirectWithToast(PROFILE_PATH, 'Profile Updated');
    }
    case 'avatar': {
      const submission = parseWithZod(formData, { schema: AvatarSchema });
      // A File cannot travel back to the page: the form is shown again empty, with the message.
      if (submission.status !== 'success') return data<ActionResult>({ intent, result: submission.reply({ hideFields: ['avatar'] }) }, { status: 400 });
      const saved = await setAvatar({ ...scope, bytes: new Uint8Array(await submission.value.avatar.arrayBuffer()) });
      if (!saved.ok) {
        const message = saved.reason === 'size' ? AVATAR_SIZE_MESSAGE : AVATAR_TYPE_MESSAGE;
        return data<ActionResult>({ intent, result: submission.reply({ fieldErrors: { avatar: [message] }, hideFields: ['avatar'] }) }, { status: 400 });
      }
      return redirectWithToast(PROFILE_PATH, 'Profile Updated');
    }
    case 'remove-avatar': {
      await removeAvatar(scope);
      return redirectWithToast(PROFILE_PATH, 'Avatar Deleted');
    }
    case 'password': {
      const submission = parseWithZod(formData, { schema: ChangePasswordSchema });
      const hideFields = ['currentPassword', 'newPassword', 'confirmPassword'];
      if (submission.status !== 'success') return data<ActionResult>({ intent, result: submission.reply({ hideFields }) }, { status: 400 });
      const changed = await changePassword({
        ...scope,
        currentSessionId: ctx.sessionId,
        currentPassword: submission.value.currentPassword,
        newPassword: submission.value.newPassword,
      });
      if (!changed.ok) {
        return data<ActionResult>(
          { intent, result: submission.reply({ fieldErrors: { currentPassword: ['Current password is incorrect'] }, hideFields }) },
          { status: 400 },
        );
      }
      return redirectWithToast(PROFILE_PATH, 'Password Changed');
    }
    default:
      throw new Response('Unknown intent', { status: 400 });
  }
}

/**
 * The avatar form is multipart, the others are not. Multipart bodies go through a memory handler that stops
 * reading a part as soon as it passes the limit; null means the upload was too large.
 */
async function readForm(request: Request) {
  if (!(request.headers.get('content-type') ?? '').startsWith('multipart/form-data')) return request.formData();
  let total = 0;
  const memory = unstable_createMemoryUploadHandler({ maxPartSize: MAX_AVATAR_BYTES });
  try {
    return await unstable_parseMultipartFormData(request, async (part) => {
      // Only the fields of the avatar form are read; a flood of parts cannot fill the memory either.
      if (part.name !== 'avatar' && part.name !== 'intent') return undefined;
      const value = await memory(part);
      total += typeof value === 'string' ? value.length : (value?.size ?? 0);
      if (total > MAX_AVATAR_BYTES + 1024) throw new MaxPartSizeExceededError(part.name, MAX_AVATAR_BYTES);
      return value;
    });
  } catch (err) {
    if (err instanceof MaxPartSizeExceededError) return null;
    throw new Response('The upload could not be read', { status: 400 });
  }
}

export const handle = { breadcrumb: 'My Profile' };

export default function MyProfile() {
  const { user, timeZones } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const resultFor = (intent: ActionResult['intent']) => (actionData?.intent === intent ? actionData.result : undefined);

  const [profileForm, profile] = useForm({
    id: 'profile',
    lastResult: resultFor('profile'),
    defaultValue: { firstName: user.firstName, lastName: user.lastName, dateFormat: user.dateFormat, timeFormat: user.timeFormat, timezone: user.timezone },
    shouldValidate: 'onSubmit',
  });
  const [avatarForm, avatar] = useForm({
    id: 'avatar',
    lastResult: resultFor('avatar'),
  });
  const [passwordForm, password] = useForm({
    id: 'password',
    lastResult: resultFor('password'),
    shouldValidate: 'onSubmit',
  });
  const sample = new Date(Date.UTC(2026, 11, 31, 15, 30));

  return (
    <div className="stack">
      <SettingsPage title="My Profile" subHeader="Your name, your picture and how dates and times are shown to you.">
        <Form method="post" {...getFormProps(profileForm)}>
          <div className="row">
            <Field label="First name" field={profile.firstName} autoComplete="given-name" />
            <Field label="Last name" field={profile.lastName} autoComplete="family-name" />
          </div>
          <p className="muted">
            Email: {user.email} · <Link to="/settings/security">Change email or two-factor sign-in</Link>
          </p>
          <SelectField
            label="Date format"
            field={profile.dateFormat}
            options={DATE_FORMATS.map((f) => ({ value: f, label: `${f} (${formatDate(sample, { dateFormat: f })})` }))}
          />
          <SelectField label="Time format" field={profile.timeFormat} options={TIME_FORMATS} />
          <SelectField label="Time zone" field={profile.timezone} options={timeZones.map((z) => ({ value: z, label: z }))} />
          <ErrorList id={profileForm.errorId} errors={profileForm.errors} />
          <FormActions cancelTo={PROFILE_PATH} intent="profile" />
        </Form>
      </SettingsPage>

      <SettingsPage title="Profile picture" subHeader="A JPEG or PNG image of at most 1 MB.">
        <div className="row" data-testid="avatar-preview" data-has-avatar={user.hasAvatar}>
          <Avatar user={user} size={64} />
        </div>
        <Form method="post" encType="multipart/form-data" {...getFormProps(avatarForm)}>
          <div className="field">
            <label htmlFor={avatar.avatar.id}>Picture</label>
            <input
              id={avatar.avatar.id}
              name={avatar.avatar.name}
              type="file"
              accept="image/png,image/jpeg"
              aria-invalid={avatar.avatar.errors ? true : undefined}
              aria-describedby={avatar.avatar.errors ? avatar.avatar.errorId : undefined}
            />
            <ErrorList id={avatar.avatar.errorId} errors={avatar.avatar.errors} />
          </div>
          <ErrorList id={avatarForm.errorId} errors={avatarForm.errors} />
          <button type="submit" className="btn btn-primary" name="intent" value="avatar">
            Upload
          </button>
        </Form>
        {user.hasAvatar ? (
          <Form method="post">
            <button type="submit" className="btn btn-danger" name="intent" value="remove-avatar">
              Remove picture
            </button>
          </Form>
        ) : null}
      </SettingsPage>

      <SettingsPage title="Change password" subHeader="Other devices signed in as you are signed out when the password changes.">
        <Form method="post" {...getFormProps(passwordForm)}>
          <Field label="Current password" field={password.currentPassword} type="password" autoComplete="current-password" />
          <Field label="New password" field={password.newPassword} type="password" autoComplete="new-password" />
          <Field label="Confirm new password" field={password.confirmPassword} type="password" autoComplete="new-password" />
          <ErrorList id={passwordForm.errorId} errors={passwordForm.errors} />
          <FormActions cancelTo={PROFILE_PATH} intent="password" submitLabel="Change password" />
        </Form>
      </SettingsPage>
    </div>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('My Profile', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
