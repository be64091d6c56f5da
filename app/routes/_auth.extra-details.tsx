import { getFormProps, useForm } from '@conform-to/react';
import { parseWithZod } from '~/utils/conform.server';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Field, SelectField } from '~/components/ui/forms';
import { saveExtraDetails } from '~/models/accounts/accounts.server';
import { COMPANY_SIZES, INDUSTRIES } from '~/models/accounts/constants';
import { ExtraDetailsSchema } from '~/models/accounts/schemas';
import { pageTitle } from '~/utils/format';
import { requireUser } from '~/utils/session.server';
import { redirectWithToast } from '~/utils/toast.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  return { name: ctx.account.name, companySize: ctx.account.companySize, industry: ctx.account.industry };
}

export async function action({ request }: ActionFunctionArgs) {
  const ctx = await requireUser(request);
  const submission = parseWithZod(await request.formData(), { schema: ExtraDetailsSchema });
  if (submission.status !== 'success') return data(submission.reply(), { status: 400 });
  await saveExtraDetails({ accountId: ctx.account.id, userId: ctx.user.id, ...submission.value });
  return redirectWithToast('/home', 'Signup Successful');
}

export default function ExtraDetails() {
  const current = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    lastResult,
    defaultValue: { organisationName: current.name, companySize: current.companySize ?? '', industry: current.industry ?? '' },
    shouldValidate: 'onSubmit',
  });
  return (
    <>
      <h1>Tell us about your team</h1>
      <Form method="post" {...getFormProps(form)}>
        <Field label="Organisation name" field={fields.organisationName} />
        <SelectField label="Company size" field={fields.companySize} placeholder="Choose…" options={COMPANY_SIZES.map((s) => ({ value: s, label: s }))} />
        <SelectField label="Industry" field={fields.industry} placeholder="Choose…" options={INDUSTRIES.map((s) => ({ value: s, label: s }))} />
        <button type="submit" className="btn btn-primary">
          Continue
        </button>
      </Form>
    </>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('Extra details') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
