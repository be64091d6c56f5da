import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { useEffect, useState } from 'react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { ErrorList, Field, TextareaField } from '~/components/ui/forms';
import { createWorkflow, workflowAllowance, WorkflowInputError } from '~/models/automation/workflows.server';
import { WorkflowDialogSchema } from '~/models/automation/workflows.schemas';
import { pageTitle } from '~/utils/format';
import { requireFeature, requirePermission } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

async function guard(request: Request) {
  const ctx = await requirePermission(request, 'manage_workflow_rules');
  return requireFeature(request, 'workflowAutomation/advanceWorkflows', ctx);
}

/** The create dialog (section 5 "Workflow dialog"): a name and a description, then the builder opens with them. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await guard(request);
  const allowance = await workflowAllowance({ accountId: ctx.account.id });
  return { blocked: allowance.allowed ? null : allowance.message };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await guard(request);
  const formData = await request.formData();
  const submission = parseWithZod(formData, { schema: WorkflowDialogSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  try {
    const row = await createWorkflow({ accountId: ctx.account.id, actorId: ctx.user.id, ...submission.value });
    return redirectWithToast(`/workflows/builder/${row.id}`, 'Workflow Created');
  } catch (err) {
    if (err instanceof WorkflowInputError) return data(submission.reply({ formErrors: [err.message] }), { status: err.status });
    throw err;
  }
}

export const handle = { breadcrumb: 'Create Workflow' };

export default function CreateWorkflowDialog() {
  const { blocked } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: 'workflow-create',
    lastResult,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  // "Create is disabled until the form is edited" — a JavaScript nicety; without it the server judges the form.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const formErrors = blocked ? [blocked] : form.errors;
  return (
    <dialog open aria-labelledby="workflow-create-title" data-testid="workflow-create-dialog" style={{ position: 'relative' }}>
      <h2 id="workflow-create-title">Create Workflow</h2>
      <Form method="post" {...getFormProps(form)} className="stack">
        <Field label="Name" field={fields.name} autoComplete="off" />
        <TextareaField label="Description" field={fields.description} rows={3} />
        <ErrorList id={form.errorId} errors={formErrors} />
        <div className="dialog-actions">
          <Link to="/workflows" className="btn">
            Cancel
          </Link>
          <button type="submit" className="btn btn-primary" disabled={Boolean(blocked) || (hydrated && !form.dirty)} title={blocked ?? undefined}>
            {blocked ? <DeniedBadge kind="feature" /> : null} Create
          </button>
        </div>
      </Form>
    </dialog>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Create Workflow', 'Workflows') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
