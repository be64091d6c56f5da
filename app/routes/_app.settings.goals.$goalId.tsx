import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { CheckboxField, ErrorList, Field, TextareaField } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { CONVERSION_LIMITS } from '~/models/conversions/constants';
import { createGoal, deleteGoal, getGoal, updateGoal } from '~/models/conversions/conversions.server';
import { GoalSchema } from '~/models/conversions/schemas';
import { settingsEditorAction } from '~/models/productivity/editor-action.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { pageTitle } from '~/utils/format';
import { readEditorParam } from '~/utils/route-id';
import { can, requireFeature, requirePermission, requireUser } from '~/utils/session.server';

const LIST = '/settings/goals';
/** goals/add creates, goals/{goalId} edits (the spec's routes). */
const readParam = (p: string | undefined) => readEditorParam(p === 'add' ? 'new' : p === 'new' ? 'x' : p);

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  await requireFeature(request, 'chatMessenger/conversionGoals', ctx);
  const id = readParam(params.goalId);
  const goal = id === 'new' ? null : await getGoal({ accountId: ctx.account.id, id });
  if (goal === undefined) throw new Response('Not Found', { status: 404 });
  return {
    goal: goal
      ? { id: goal.id, name: goal.name, eventName: goal.eventName, description: goal.description, attributionDays: goal.attributionDays, active: goal.active }
      : null,
    locked: !can(ctx, 'manage_messenger_customization'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_messenger_customization');
  await requireFeature(request, 'chatMessenger/conversionGoals', ctx);
  return settingsEditorAction({
    formData: await request.formData(),
    who: { accountId: ctx.account.id, actorId: ctx.user.id },
    id: readParam(params.goalId),
    list: LIST,
    schema: GoalSchema,
    create: createGoal,
    update: updateGoal,
    remove: deleteGoal,
    toasts: { created: 'Goal Created', updated: 'Goal Updated', deleted: 'Goal Deleted' },
  });
}

export const handle = {
  breadcrumb: (loaderData: { goal: { name: string } | null } | undefined) => (loaderData ? loaderData.goal?.name ?? 'Add Goal' : null),
};

export default function GoalPage() {
  const loaderData = useLoaderData<typeof loader>();
  return <GoalEditor key={loaderData.goal?.id ?? 'new'} {...loaderData} />;
}

function GoalEditor({ goal, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `goal-${goal?.id ?? 'new'}`,
    lastResult,
    defaultValue: goal
      ? {
          name: goal.name,
          eventName: goal.eventName,
          description: goal.description,
          attributionDays: String(goal.attributionDays),
          active: goal.active ? 'on' : undefined,
        }
      : { attributionDays: '30', active: 'on' },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <SettingsPage
      title={goal ? 'Edit Goal' : 'Add Goal'}
      subHeader="A goal counts each contact once, the first time your site reports its event; it is attributed to the conversation in which an agent last replied within the attribution window."
      learnMore="/help-center/analytics#goals"
      locked={locked}
      actions={goal ? <DeleteConfirm id={`goal-${goal.id}`} label="Delete" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} /> : null}
    >
      <Form method="post" {...getFormProps(form)}>
        <fieldset disabled={locked} className="stack">
          <Field label="Goal Name" field={fields.name} disabled={locked} autoComplete="off" maxLength={CONVERSION_LIMITS.nameMax} />
          <Field
            label="Event Name"
            field={fields.eventName}
            disabled={locked}
            autoComplete="off"
            hint={
              <>
                Your site reports it with <code>Parley.track('{fields.eventName.value || 'signup'}')</code>; <code>sale</code> counts sales.
              </>
            }
          />
          <TextareaField label="Description" field={fields.description} disabled={locked} maxLength={CONVERSION_LIMITS.descriptionMax} />
          <Field
            label="Attribution window (days)"
            type="number"
            field={fields.attributionDays}
            disabled={locked}
            min={1}
            max={CONVERSION_LIMITS.attributionDaysMax}
          />
          <CheckboxField label="Active" field={fields.active} disabled={locked} />
        </fieldset>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo={LIST} submitLabel={goal ? 'Update' : 'Create'} intent="save" locked={locked} />
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [{ title: pageTitle(loaderData?.goal?.name ?? 'Add Goal', 'Goals', 'Settings') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
