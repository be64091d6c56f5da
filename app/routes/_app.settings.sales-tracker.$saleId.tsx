import { getFormProps, useForm } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeleteConfirm } from '~/components/ui/delete-confirm';
import { CheckboxField, ErrorList, Field } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { CONVERSION_LIMITS } from '~/models/conversions/constants';
import { createSaleTracker, deleteSaleTracker, getSaleTracker, updateSaleTracker } from '~/models/conversions/conversions.server';
import { SaleTrackerSchema } from '~/models/conversions/schemas';
import { settingsEditorAction } from '~/models/productivity/editor-action.server';
import { ROLE_LOCKED_MESSAGE } from '~/models/roles/permissions';
import { pageTitle } from '~/utils/format';
import { readEditorParam } from '~/utils/route-id';
import { can, requireFeature, requirePermission, requireUser } from '~/utils/session.server';

const LIST = '/settings/sales-tracker';
/** sales-tracker/add creates, sales-tracker/{saleId} edits a tracker (the spec's routes). */
const readParam = (p: string | undefined) => readEditorParam(p === 'add' ? 'new' : p === 'new' ? 'x' : p);

export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  await requireFeature(request, 'chatMessenger/salesTracker', ctx);
  const id = readParam(params.saleId);
  const tracker = id === 'new' ? null : await getSaleTracker({ accountId: ctx.account.id, id });
  if (tracker === undefined) throw new Response('Not Found', { status: 404 });
  return {
    tracker: tracker
      ? { id: tracker.id, name: tracker.name, currency: tracker.currency, attributionDays: tracker.attributionDays, active: tracker.active }
      : null,
    locked: !can(ctx, 'manage_messenger_customization'),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_messenger_customization');
  await requireFeature(request, 'chatMessenger/salesTracker', ctx);
  return settingsEditorAction({
    formData: await request.formData(),
    who: { accountId: ctx.account.id, actorId: ctx.user.id },
    id: readParam(params.saleId),
    list: LIST,
    schema: SaleTrackerSchema,
    create: createSaleTracker,
    update: updateSaleTracker,
    remove: deleteSaleTracker,
    toasts: { created: 'Sales Tracker Created', updated: 'Sales Tracker Updated', deleted: 'Sales Tracker Deleted' },
  });
}

export const handle = {
  breadcrumb: (loaderData: { tracker: { name: string } | null } | undefined) => (loaderData ? loaderData.tracker?.name ?? 'Add Sales Tracker' : null),
};

export default function SalesTrackerPage() {
  const loaderData = useLoaderData<typeof loader>();
  return <TrackerEditor key={loaderData.tracker?.id ?? 'new'} {...loaderData} />;
}

function TrackerEditor({ tracker, locked }: ReturnType<typeof useLoaderData<typeof loader>>) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `tracker-${tracker?.id ?? 'new'}`,
    lastResult,
    defaultValue: tracker
      ? { name: tracker.name, currency: tracker.currency, attributionDays: String(tracker.attributionDays), active: tracker.active ? 'on' : undefined }
      : { currency: 'USD', attributionDays: '30', active: 'on' },
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <SettingsPage
      title={tracker ? 'Edit Sales Tracker' : 'Add Sales Tracker'}
      subHeader="Sales your site reports are attributed to the conversation in which an agent last replied within the attribution window."
      learnMore="/help-center/analytics#sales-tracker"
      locked={locked}
      actions={tracker ? <DeleteConfirm id={`tracker-${tracker.id}`} label="Delete" disabled={locked} disabledReason={ROLE_LOCKED_MESSAGE} /> : null}
    >
      <Form method="post" {...getFormProps(form)}>
        <fieldset disabled={locked} className="stack">
          <Field label="Tracker Name" field={fields.name} disabled={locked} autoComplete="off" maxLength={CONVERSION_LIMITS.nameMax} />
          <Field
            label="Currency"
            field={fields.currency}
            disabled={locked}
            autoComplete="off"
            maxLength={3}
            hint="The currency of a sale reported without one (ISO 4217, such as USD)."
          />
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
        {tracker ? (
          <p className="muted">
            Report a sale with{' '}
            <code>{`Parley.track('sale', { amount: 49.90, currency: '${tracker.currency}', orderId: 'A-1042', tracker: ${tracker.id} })`}</code>.
          </p>
        ) : null}
        <FormActions cancelTo={LIST} submitLabel={tracker ? 'Update' : 'Create'} intent="save" locked={locked} />
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [
  { title: pageTitle(loaderData?.tracker?.name ?? 'Add Sales Tracker', 'Sales Tracker', 'Settings') },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
