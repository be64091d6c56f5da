import { getCollectionProps, getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { ErrorList, Field, TextareaField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { TEAM_DESCRIPTION_MAX } from '~/models/teams/constants';
import { TeamSchema } from '~/models/teams/schemas';
import { createTeam, deleteTeam, getTeam, listTeamCandidates, TeamInputError, updateTeam } from '~/models/teams/teams.server';
import { pageTitle } from '~/utils/format';
import { parseRouteId } from '~/utils/route-id';
import { requireFeature, roleDenied } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

/** `new` is create mode, a number is edit mode, anything else is not a page. */
function readTeamId(param: string | undefined): 'new' | number {
  if (param === 'new') return 'new';
  const id = parseRouteId(param);
  if (id === null) throw new Response('Not Found', { status: 404 });
  return id;
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireFeature(request, 'teamManagement/teams');
  const id = readTeamId(params.id);
  const team = id === 'new' ? null : await getTeam({ accountId: ctx.account.id, id });
  if (team === undefined) throw new Response('Not Found', { status: 404 });
  const users = await listTeamCandidates({ accountId: ctx.account.id });
  return {
    team: team ? { id: team.id, name: team.name, description: team.description, memberIds: team.memberIds } : null,
    users,
    locked: !ctx.isOrgAdmin,
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requireFeature(request, 'teamManagement/teams');
  if (!ctx.isOrgAdmin) await roleDenied(request);
  const id = readTeamId(params.id);
  const formData = await request.formData();
  const intent = formData.get('intent');
  const who = { accountId: ctx.account.id, actorId: ctx.user.id };

  if (intent === 'delete' && id !== 'new') {
    if (!(await deleteTeam({ ...who, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast('/settings/teams', { type: 'info', text: 'Team Deleted' });
  }
  if (intent !== 'save') throw new Response('Unknown intent', { status: 400 });

  const submission = parseWithZod(formData, { schema: TeamSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  const input = { ...who, name: submission.value.name, description: submission.value.description ?? null, memberIds: submission.value.assigneeIds };
  try {
    if (id === 'new') {
      await createTeam(input);
      return redirectWithToast('/settings/teams', 'Team Created');
    }
    if (!(await updateTeam({ ...input, id }))) throw new Response('Not Found', { status: 404 });
    return redirectWithToast('/settings/teams', { type: 'info', text: 'Team Updated' });
  } catch (err) {
    if (err instanceof TeamInputError) return data(submission.reply({ fieldErrors: { [err.field]: [err.message] } }), { status: 400 });
    throw err;
  }
}

export const handle = {
  breadcrumb: (loaderData: { team: { name: string } | null } | undefined) => (loaderData ? (loaderData.team?.name ?? 'Create Team') : null),
};

export default function TeamPage() {
  const loaderData = useLoaderData<typeof loader>();
  // A fresh form per team, so that moving from one team to another does not carry typed values over.
  return <TeamEditor key={loaderData.team?.id ?? 'new'} {...loaderData} />;
}

function TeamEditor({ team, users, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `team-${team?.id ?? 'new'}`,
    lastResult,
    defaultValue: team ? { name: team.name, description: team.description ?? '', assigneeIds: team.memberIds.map(String) } : undefined,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  // Errors of single ids (assigneeIds[0]...) are shown with the list's own.
  const memberErrors = [...new Set(Object.values(fields.assigneeIds.allErrors).flat())];
  const members = getCollectionProps(fields.assigneeIds, { type: 'checkbox', options: users.map((u) => String(u.id)), ariaAttributes: true });
  return (
    <SettingsPage
      title={team ? 'Edit Team' : 'Create Team'}
      subHeader="A team is a group of users who work conversations together."
      learnMore="/help-center"
      locked={locked}
      actions={
        team ? (
          <DeleteConfirm id={`team-${team.id}`} label="Delete" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} />
        ) : null
      }
    >
      <Form method="post" {...getFormProps(form)}>
        <Field label="Team Name" field={fields.name} disabled={locked} autoComplete="off" />
        <TextareaField label="Description" field={fields.description} disabled={locked} maxLength={TEAM_DESCRIPTION_MAX} />
        <fieldset aria-describedby={fields.assigneeIds.errorId} data-testid="members">
          <legend>Team Members</legend>
          {users.length === 0 ? <p className="muted">This account has no users yet.</p> : null}
          <div className="perm-grid">
            {users.map((u, i) => {
              const { key, ...props } = members[i];
              return (
                <label key={key} className="check">
                  <input {...props} disabled={locked} />
                  <span>
                    {`${u.firstName} ${u.lastName}`.trim()} <small className="muted">{u.email}</small>
                  </span>
                </label>
              );
            })}
          </div>
          <ErrorList id={fields.assigneeIds.errorId} errors={memberErrors} />
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo="/settings/teams" submitLabel={team ? 'Update' : 'Create'} intent="save" locked={locked} />
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [{ title: pageTitle(loaderData?.team?.name ?? 'Create Team', 'Teams', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
