import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { ErrorList, Field } from '~/components/ui/forms';
import { FormActions, SettingsPage } from '~/components/ui/settings-page';
import { ContactCreateSchema } from '~/models/crm/contacts.schemas';
import { createContact } from '~/models/crm/contacts.server';
import { FieldInputError } from '~/models/productivity/shared.server';
import { pageTitle } from '~/utils/format';
import { requirePermission } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

export async function loader({ request }: LoaderFunctionArgs) {
  await requirePermission(request, 'manage_contacts');
  return null;
}

/** The first contact form: names and email required; phone, company name and domain optional. */
export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requirePermission(request, 'manage_contacts');
  const formData = await request.formData();
  if (formData.get('intent') !== 'create') throw new Response('Unknown intent', { status: 400 });
  const submission = parseWithZod(formData, { schema: ContactCreateSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  try {
    const contact = await createContact({ accountId: ctx.account.id, actorId: ctx.user.id, input: submission.value });
    return redirectWithToast(`/customers/${contact.id}`, 'Created');
  } catch (err) {
    if (err instanceof FieldInputError) return data(submission.reply({ fieldErrors: { [err.field]: [err.message] } }), { status: 400 });
    throw err;
  }
}

export const handle = { breadcrumb: 'New Contact' };

export default function NewContact() {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: 'contact-new',
    lastResult,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onSubmit',
  });
  return (
    <SettingsPage title="New Contact" subHeader="Add a person by name and email; the rest can wait.">
      <Form method="post" {...getFormProps(form)} className="stack">
        <div className="row">
          <Field label="First Name" field={fields.firstName} autoComplete="off" />
          <Field label="Last Name" field={fields.lastName} autoComplete="off" />
        </div>
        <Field label="Email" field={fields.email} type="email" autoComplete="off" />
        <Field label="Phone" field={fields.phone} type="tel" inputMode="numeric" />
        <div className="row">
          <Field label="Company Name" field={fields.companyName} />
          <Field label="Company Domain" field={fields.companyDomain} placeholder="example.com" />
        </div>
        <ErrorList id={form.errorId} errors={form.errors} />
        <FormActions cancelTo="/customers" submitLabel="Create" intent="create" />
      </Form>
    </SettingsPage>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('New Contact', 'CRM') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
